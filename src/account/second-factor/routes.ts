import { SecondFactorNotConfiguredError } from '../../errors.js';
import { type AnyEndpoint, endpoint } from '../../http/endpoint.js';
import { t } from '../../http/response-schema.js';
import type { RateCounter } from '../../limits/rate-counter.js';
import { signedInExample, signedInResponse } from '../../modules/users/view.js';
import { rules } from '../../validation/rule-list.js';
import { reauthProof, reauthRules } from '../reauth/rules.js';
import { clientInfo } from '../request-client.js';
import { answered } from '../sign-in/admission.js';
import {
  disableRules,
  enableRules,
  regenerateRules,
  secondFactorLoginRules,
  secondFactorProof,
} from './rules.js';
import type { SecondFactorSettings } from './settings.js';
import type { SecondFactorSignIn } from './sign-in.js';

const statusResponse = t.object({
  totp: t.object({ enabled: t.boolean(), created_at: t.nullable(t.dateTime()) }),
  recovery_codes_left: t.integer(),
});
const recoveryCodesResponse = t.object({ recovery_codes: t.array(t.string()) });
const recoveryCodesExample = {
  recovery_codes: [
    'k7dq2-xw4mz',
    'p3hfa-7bn2s',
    'e5tgu-q2vrk',
    'zy6mc-3dp4h',
    'a2nx7-fwk5e',
    'r4sbj-m6ty2',
    'h7wec-5qnz3',
    'u2pkd-y4gam',
    'c6fvr-t3xjb',
    'm5zqe-2hsw7',
  ],
};

/**
 * The signed-in user's second factor, and the second step of a login. `providers`: the configured provider
 * names (a password-less account re-authenticates with one); `configured`: SECRETS_KEY is set (without it
 * the routes that need the secrets answer 503 second_factor_not_configured); `loginLimit`: logins per IP.
 */
export function secondFactorEndpoints(
  settings: SecondFactorSettings,
  signIn: SecondFactorSignIn,
  options: { providers: readonly string[]; configured: boolean; loginLimit: RateCounter },
): AnyEndpoint[] {
  const { providers, loginLimit } = options;
  const unavailable = options.configured ? undefined : () => new SecondFactorNotConfiguredError();
  const note = options.configured
    ? ''
    : ' Not configured on this deployment: answers 503 `second_factor_not_configured` (set SECRETS_KEY).';
  // 429: wrong proofs count per account; 502: a provider re-authentication could not be checked.
  const errors = unavailable ? [429, 502, 503] : [429, 502];
  return [
    endpoint({
      method: 'GET',
      path: '/user/2fa',
      summary: "The signed-in user's second factor",
      description:
        'Whether the authenticator (TOTP) is on, since when, and how many recovery codes are unused.',
      tag: 'user',
      auth: 'required',
      rules: rules({}),
      response: statusResponse,
      example: { totp: { enabled: true, created_at: '2026-11-23T12:41:10.000Z' }, recovery_codes_left: 10 },
      handle: ({ auth }) => settings.status(auth),
    }),
    endpoint({
      method: 'POST',
      path: '/user/2fa/totp/setup',
      summary: 'Start setting up an authenticator app',
      description:
        'Needs re-authentication (`current_password`, or a linked provider for a password-less account). ' +
        'Answers a new secret (base32), its `otpauth://` URL and that URL as an SVG QR code; it is pending ' +
        'until totp/enable confirms it with a code, and a new setup replaces a pending one. While the ' +
        `second factor is on this is a 422 on \`totp\` (disable it first).${note}`,
      tag: 'user',
      auth: 'required',
      errors,
      unavailable,
      rules: rules({ ...reauthRules(providers) }),
      response: t.object({ secret: t.string(), otpauth_url: t.string(), qr_svg: t.string() }),
      example: {
        secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
        otpauth_url:
          'otpauth://totp/accounts:minji%40example.com?issuer=accounts&secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30',
        qr_svg:
          '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 37 37" shape-rendering="crispEdges">…</svg>',
      },
      handle: ({ params, auth }) => settings.setup(auth, reauthProof(params, providers)),
    }),
    endpoint({
      method: 'POST',
      path: '/user/2fa/totp/enable',
      summary: 'Turn the second factor on with a first code',
      description:
        'A code of the pending authenticator turns it on. Answers 10 recovery codes, shown this once (only ' +
        `their digests are kept). A wrong code is a 422 on \`code\`.${note}`,
      tag: 'user',
      auth: 'required',
      errors: unavailable ? [429, 503] : [429],
      unavailable,
      rules: enableRules,
      response: recoveryCodesResponse,
      example: recoveryCodesExample,
      handle: ({ params, auth, request }) => settings.enable(auth, params.code, clientInfo(request)),
    }),
    endpoint({
      method: 'POST',
      path: '/user/2fa/disable',
      summary: 'Turn the second factor off',
      description:
        'Needs re-authentication and the second factor: `code` (the authenticator) or `recovery_code`. ' +
        'Removes the authenticator and every recovery code; answers the new status. Wrong codes count on ' +
        "the account's run, as at `auth/login/second-factor` (waits, then a lock at 100): a locked " +
        'authenticator takes a `recovery_code`, or its `code` after a passkey re-authentication, which ' +
        `ends the run.${note}`,
      tag: 'user',
      auth: 'required',
      errors,
      unavailable,
      rules: disableRules(providers),
      response: statusResponse,
      example: { totp: { enabled: false, created_at: null }, recovery_codes_left: 0 },
      handle: ({ params, auth, request }) =>
        settings.disable(
          auth,
          reauthProof(params, providers),
          secondFactorProof(params),
          clientInfo(request),
        ),
    }),
    endpoint({
      method: 'POST',
      path: '/user/2fa/recovery-codes/regenerate',
      summary: 'Replace the recovery codes',
      description:
        'Needs re-authentication and an authenticator `code`. The old codes stop working. Wrong codes count ' +
        "on the account's run, as at `auth/login/second-factor`; a passkey re-authentication ends it." +
        note,
      tag: 'user',
      auth: 'required',
      errors,
      unavailable,
      rules: regenerateRules(providers),
      response: recoveryCodesResponse,
      example: recoveryCodesExample,
      handle: ({ params, auth, request }) =>
        settings.regenerateRecoveryCodes(
          auth,
          reauthProof(params, providers),
          secondFactorProof(params),
          clientInfo(request),
        ),
    }),
    endpoint({
      method: 'POST',
      path: '/auth/login/second-factor',
      summary: 'Finish a login with the second factor',
      description:
        'For an account with a second factor on, a login whose password (or provider token) is right, a ' +
        'password reset and a deletion cancel answer 401 `second_factor_required` with a `challenge`. Send it ' +
        'with `code` (the authenticator) or `recovery_code` for the login answer (for a cancel, the deletion ' +
        'is taken back first). The challenge works once, for 5 minutes, and dies after 5 wrong codes (then ' +
        '401 `authentication_failed`: log in again); a wrong code is a 422 on its field. After 5 wrong codes ' +
        'in a row for the account, each further code waits longer (429 with Retry-After: 30 s, doubling up ' +
        'to an hour); after 100 the authenticator is locked (a 422 on `code`) until a recovery code, a ' +
        'passkey or an operator reset. A right code ends the run. An account disabled, or scheduled for ' +
        'deletion, since the challenge was made gets 401 `account_disabled` or 409 `deletion_scheduled`.',
      tag: 'auth',
      auth: 'none',
      limit: loginLimit,
      errors: [401, 409, 429],
      rules: secondFactorLoginRules,
      response: signedInResponse,
      example: signedInExample,
      handle: async ({ params, request }) =>
        answered(await signIn.complete(params.challenge, secondFactorProof(params), clientInfo(request))),
    }),
  ];
}
