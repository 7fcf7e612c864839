import { IdentityVerificationNotConfiguredError } from '../../errors.js';
import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import { t } from '../../http/response-schema.js';
import {
  guardianConsentRules,
  guardianLinkRules,
  guardianRequestRules,
  guardianWithdrawRules,
} from '../../modules/guardian/rules.js';
import { preferredLocale } from '../../validation/messages.js';
import { clientInfo } from '../request-client.js';
import type { GuardianIdentityCheck } from './identity.js';
import type { GuardianRequests } from './requests.js';
import type { GuardianConsents } from './service.js';

const linkViewShape = t.object({
  purpose: t.enum(['consent', 'withdraw']),
  child: t.object({ username: t.string() }),
  documents: t.array(t.object({ key: t.string(), version: t.integer(), title: t.string(), url: t.string() })),
  method: t.enum(['mailed_link', 'identity_verification']),
  expires_at: t.dateTime(),
});

const EXPIRES = '2026-11-28T12:40:05.123Z';

/** A child asks a guardian; the guardian's page reads the link, verifies the guardian, answers or withdraws. */
export function guardianEndpoints(
  requests: GuardianRequests,
  consents: GuardianConsents,
  identity: GuardianIdentityCheck,
): AnyEndpoint[] {
  return [
    endpoint({
      method: 'POST',
      path: '/user/guardian/request',
      summary: 'Ask a legal guardian to consent (a child under 14)',
      description:
        'Mails `guardian_email` a single-use link to GUARDIAN_CONSENT_URL, valid until the child’s deadline ' +
        '(GUARDIAN_CONSENT_DAYS after sign-up); a new request replaces the earlier link. At most 3 an hour ' +
        '(429). A 422 on `guardian_email` when the account needs no consent, or names its own address.',
      tag: 'user',
      auth: 'required',
      beforeGuardianConsent: true,
      errors: [429],
      rules: guardianRequestRules,
      response: t.object({ guardian_consent: t.literal('pending'), expires_at: t.dateTime() }),
      example: { guardian_consent: 'pending', expires_at: EXPIRES },
      handle: ({ auth, params, request }) =>
        requests.request(auth, params.guardian_email, clientInfo(request)),
    }),
    endpoint({
      method: 'GET',
      path: '/guardian/consent',
      summary: 'What a guardian’s link is about: the child and the documents it agreed to',
      description:
        '`method` tells the page whether the guardian must verify their identity first ' +
        '(`identity_verification`) or the link alone is the method (`mailed_link`). A used, replaced or ' +
        'expired link is a 422 on `token`.',
      tag: 'guardian',
      auth: 'none',
      rules: guardianLinkRules,
      response: linkViewShape,
      example: {
        purpose: 'consent',
        child: { username: '민지' },
        documents: [{ key: 'terms', version: 1, title: 'Terms of Service', url: '/legal/terms/1/en' }],
        method: 'mailed_link',
        expires_at: EXPIRES,
      },
      handle: ({ params, request }) =>
        consents.show(params.token, preferredLocale(request.headers['accept-language'])),
    }),
    endpoint({
      method: 'POST',
      path: '/guardian/identity/start',
      summary: 'Start the guardian’s identity verification (PortOne)',
      description:
        'An `identity_verification_id` bound to this link (a consent’s or a withdrawal’s), for PortOne’s ' +
        'browser SDK. 503 ' +
        '`identity_verification_not_configured` where PortOne is not configured.',
      tag: 'guardian',
      auth: 'none',
      errors: [503],
      unavailable: identity.configured ? undefined : () => new IdentityVerificationNotConfiguredError(),
      rules: guardianLinkRules,
      response: t.object({
        identity_verification_id: t.string(),
        store_id: t.string(),
        channel_key: t.string(),
      }),
      example: {
        identity_verification_id: 'gv-3q2Kx8Yc0lVbNw7A-Zk1p0W9sQm4Tn2Lx6Rb8Ea',
        store_id: 'store-4f2c9a1e-0000-0000-0000-000000000000',
        channel_key: 'channel-key-1a2b3c4d-0000-0000-0000-000000000000',
      },
      handle: ({ params }) => consents.startVerification(params.token),
    }),
    endpoint({
      method: 'POST',
      path: '/guardian/consent',
      summary: 'The guardian consents or refuses',
      description:
        '`agree=true` lifts the child’s restrictions and mails the guardian a link to withdraw; ' +
        '`agree=false` erases the child’s account and everything collected to ask. Where identity ' +
        'verification is configured, `identity_verification_id` must show an adult (19 or over).',
      tag: 'guardian',
      auth: 'none',
      rules: guardianConsentRules,
      response: t.object({ guardian_consent: t.enum(['granted', 'refused']) }),
      example: { guardian_consent: 'granted' },
      handle: ({ params, request }) =>
        consents.answer(params.token, params.agree, params.identity_verification_id, clientInfo(request)),
    }),
    endpoint({
      method: 'POST',
      path: '/guardian/withdraw',
      summary: 'The guardian withdraws a consent given',
      description:
        'With the link mailed when the guardian consented: the child is restricted again and the account’s ' +
        'deletion is scheduled (DELETION_GRACE_DAYS; erased at once when 0, then `deletion_due_at` is null). ' +
        'A consent given with a verified identity is withdrawn only by that guardian: `identity_verification_id` ' +
        '(from guardian/identity/start with this link) must show the same person, else a 422 naming it and ' +
        'nothing changes.',
      tag: 'guardian',
      auth: 'none',
      rules: guardianWithdrawRules,
      response: t.object({ deletion_due_at: t.nullable(t.dateTime()) }),
      example: { deletion_due_at: '2026-12-11T12:40:05.123Z' },
      handle: ({ params, request }) =>
        consents.withdraw(params.token, params.identity_verification_id, clientInfo(request)),
    }),
  ];
}
