import { type Executor, writeTransaction } from '../../db/transaction.js';
import { TooManyRequestsError, ValidationError } from '../../errors.js';
import type { AuthContext } from '../../http/auth-context.js';
import { newId } from '../../lib/ids.js';
import { hashApiToken, newApiToken } from '../../lib/tokens.js';
import type { Mailer } from '../../mail/mailer.js';
import { type GuardianRepo, waitingSince } from '../../modules/guardian/repo.js';
import { linkWithToken } from '../../modules/lifecycle/links.js';
import type { Locale } from '../../validation/messages.js';
import type { ClientInfo } from '../client.js';
import type { SecurityActivity } from '../security-activity/recorder.js';

/** GUARDIAN_* settings the flow reads. */
export interface GuardianSettings {
  /** GUARDIAN_CONSENT_URL, with `{token}`. */
  consentUrl: string;
  /** GUARDIAN_CONSENT_DAYS. */
  consentDays: number;
}

/** How many requests a child may send in an hour: each is a mail to someone else's inbox. */
export const REQUESTS_PER_HOUR = 3;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** What GuardianRequests is built from. */
export interface GuardianRequestsDeps {
  db: Executor;
  repo: GuardianRepo;
  mailer: Mailer;
  activity: SecurityActivity;
  settings: GuardianSettings;
}

/** What user/guardian/request answers: when the link (and the child's wait) ends. */
export interface RequestSent {
  guardian_consent: 'pending';
  expires_at: string;
}

/**
 * A child asks a legal guardian for consent: a mail with a single-use link (256 random bits, only its
 * SHA-256 stored) to the address the child names, valid until the child's deadline (GUARDIAN_CONSENT_DAYS
 * after sign-up). A new request replaces the links sent before. At most REQUESTS_PER_HOUR an hour per child,
 * counted on the requests themselves (every instance sees them), on top of the per-address mail cap.
 */
export class GuardianRequests {
  constructor(private readonly deps: GuardianRequestsDeps) {}

  async request(auth: AuthContext, guardianEmail: string, client: ClientInfo): Promise<RequestSent> {
    const { user } = auth;
    if (user.guardian_consent !== 'pending') {
      throw new ValidationError({ guardian_email: [{ rule: 'guardian_not_needed' }] });
    }
    if (guardianEmail.toLowerCase() === user.email.toLowerCase()) {
      throw new ValidationError({ guardian_email: [{ rule: 'guardian_email_own' }] });
    }
    const locale: Locale = client.locale ?? 'en';
    const token = newApiToken();
    const sent = await writeTransaction(this.deps.db, async (trx) => {
      const repo = this.deps.repo.with(trx);
      // The child's row lock serialises a child's requests, so the hourly count cannot be raced past.
      const child = await repo.lockChild(user.id);
      if (child?.guardian_consent !== 'pending') {
        throw new ValidationError({ guardian_email: [{ rule: 'guardian_not_needed' }] });
      }
      const now = Date.now();
      const recent = await repo.requestTimesSince(user.id, new Date(now - HOUR_MS));
      const oldest = recent[0];
      if (recent.length >= REQUESTS_PER_HOUR && oldest) {
        throw new TooManyRequestsError(Math.max(1, Math.ceil((oldest.getTime() + HOUR_MS - now) / 1000)));
      }
      const expiresAt = new Date(waitingSince(child).getTime() + this.deps.settings.consentDays * DAY_MS);
      await repo.retire(user.id, 'consent');
      await repo.insertLink({
        id: newId(),
        userId: user.id,
        purpose: 'consent',
        guardianEmail,
        tokenHash: hashApiToken(token),
        expiresAt,
      });
      const mail = await this.deps.mailer.queueWithin(
        trx,
        guardianEmail,
        'guardian_consent_request',
        locale,
        {
          username: child.username,
          link: linkWithToken(this.deps.settings.consentUrl, token),
          validForMs: Math.max(0, expiresAt.getTime() - now),
        },
      );
      // The guardian's address stays out of the child's log: it is a third party's, kept only to ask.
      await this.deps.activity.record({ user: child, type: 'guardian_requested', client }, trx);
      return { mail, expiresAt };
    });
    this.deps.mailer.sendSoon(sent.mail);
    return { guardian_consent: 'pending', expires_at: sent.expiresAt.toISOString() };
  }
}
