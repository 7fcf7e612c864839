import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import { type Executor, writeTransaction } from '../../db/transaction.js';
import { ValidationError } from '../../errors.js';
import type { PasswordHasher } from '../../lib/passwords.js';
import { hashApiToken } from '../../lib/tokens.js';
import { newTotpSecret, otpauthUrl, totpSecretText } from '../../lib/totp.js';
import { EnrollmentExpiredError, EnrollmentUsedError } from './errors.js';
import type { CeremonyOptions, StaffPasskeys } from './passkeys.js';
import type { StaffRepo, StaffRow } from './repo.js';
import type { StaffTotp } from './sign-in.js';

export interface StaffEnrollmentDeps {
  db: Executor;
  repo: StaffRepo;
  hasher: PasswordHasher;
  totp: StaffTotp;
  passkeys: StaffPasskeys;
  /** APP_NAME: the issuer an authenticator app shows. */
  issuer: string;
  now?: () => number;
}

/** What the enrollment page shows: who is enrolling, and the authenticator's secret to add. */
export interface EnrollmentView {
  email: string;
  role: string;
  totp_secret: string;
  otpauth_url: string;
}

/**
 * The one-time enrollment link: a password and one second factor, set together (nothing signs in before
 * both): an authenticator app proven by a code, or a passkey made for the link's challenge.
 */
export class StaffEnrollment {
  private readonly now: () => number;

  constructor(private readonly deps: StaffEnrollmentDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** The enrollment of a link: its authenticator secret, made on the first look and kept until enrolled. */
  async enrollment(token: string): Promise<EnrollmentView> {
    return writeTransaction(this.deps.db, async (trx) => {
      const repo = this.deps.repo.on(trx);
      const row = await this.openLink(repo, token);
      let secret: Buffer;
      if (row.totp_sealed === null) {
        secret = newTotpSecret();
        await repo.update(row.id, { totp_sealed: this.deps.totp.seal(secret, row.id) });
      } else secret = this.deps.totp.open(row.totp_sealed, row.id);
      return {
        email: row.email,
        role: row.role,
        totp_secret: totpSecretText(secret),
        otpauth_url: otpauthUrl(secret, this.deps.issuer, row.email),
      };
    });
  }

  /** Sets the password and proves the authenticator with a code: the link is then used. */
  async enroll(token: string, password: string, code: string): Promise<void> {
    const passwordHash = await this.deps.hasher.hash(password);
    await writeTransaction(this.deps.db, async (trx) => {
      const repo = this.deps.repo.on(trx);
      const row = await this.openLink(repo, token);
      // The secret the page showed (enrollment made it); a code for none is wrong.
      const step =
        row.totp_sealed === null
          ? undefined
          : this.deps.totp.stepOf(this.deps.totp.open(row.totp_sealed, row.id), code);
      if (step === undefined) throw new ValidationError({ code: [{ rule: 'second_factor_code' }] });
      await repo.update(row.id, {
        password_hash: passwordHash,
        second_factor: 'totp',
        totp_last_step: step,
        enrolled_at: new Date(this.now()),
      });
    });
  }

  /** Registration options for a passkey as the member's second factor, instead of the authenticator app. */
  async passkeyEnrollment(token: string): Promise<CeremonyOptions<unknown>> {
    return writeTransaction(this.deps.db, async (trx) =>
      this.deps.passkeys.enrollmentOptions(trx, await this.openLink(this.deps.repo.on(trx), token)),
    );
  }

  /** Sets the password and the passkey made for the link's challenge: the link is then used. */
  async enrollPasskey(
    token: string,
    password: string,
    challengeId: string,
    response: RegistrationResponseJSON,
  ): Promise<void> {
    const passwordHash = await this.deps.hasher.hash(password);
    // Used up before the transaction, so a refused answer cannot be tried again with it.
    const challenge = await this.deps.passkeys.takeEnrollmentChallenge(challengeId);
    await writeTransaction(
      this.deps.db,
      async (trx) => {
        const repo = this.deps.repo.on(trx);
        const row = await this.openLink(repo, token);
        await this.deps.passkeys.register(trx, row.id, challenge, response);
        // The authenticator secret the page showed is not the member's factor: not kept.
        await repo.update(row.id, {
          password_hash: passwordHash,
          second_factor: 'passkey',
          totp_sealed: null,
          enrolled_at: new Date(this.now()),
        });
      },
      (constraint) => (constraint === 'staff_passkeys_credential_id_key' ? 'response' : undefined),
    );
  }

  /** The staff row of an enrollment link that may still be used; refused when used, expired or unknown. */
  private async openLink(repo: StaffRepo, token: string): Promise<StaffRow> {
    const row = await repo.byEnrollmentToken(hashApiToken(token));
    if (!row) throw ValidationError.notFound('token');
    if (row.enrolled_at !== null) throw new EnrollmentUsedError();
    if ((row.enrollment_expires_at?.getTime() ?? 0) <= this.now()) throw new EnrollmentExpiredError();
    return row;
  }
}
