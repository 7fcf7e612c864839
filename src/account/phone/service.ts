import { type Executor, writeTransaction } from '../../db/transaction.js';
import { PhoneInUseError, SmsNotConfiguredError, ValidationError } from '../../errors.js';
import type { AuthContext } from '../../http/auth-context.js';
import { maskPhone } from '../../lib/phone-number.js';
import { writeAccountEvent } from '../../modules/account-events/outbox.js';
import type { OneTimeCodes } from '../../modules/one-time-codes/service.js';
import { type PhoneNumbersRepo, VERIFIED_PHONE_INDEX } from '../../modules/users/phone-repo.js';
import type { UsersService } from '../../modules/users/service.js';
import type { UserView } from '../../modules/users/view.js';
import type { SmsGuard } from '../../sms/guard.js';
import type { SmsSender } from '../../sms/sender.js';
import type { ClientInfo } from '../client.js';
import type { Reauthentication, ReauthProof } from '../reauth/service.js';
import type { SecurityActivity } from '../security-activity/recorder.js';
import { type PhoneCodeTexts, profileCodeAddress } from './code-sms.js';

/** What PhoneNumberService is built from. */
export interface PhoneNumberServiceDeps {
  db: Executor;
  phones: PhoneNumbersRepo;
  users: UsersService;
  codes: OneTimeCodes;
  texts: PhoneCodeTexts;
  sms: SmsSender;
  guard: SmsGuard;
  reauth: Reauthentication;
  activity: SecurityActivity;
}

/** The 422 of a wrong, used or expired code (or of no number waiting for one). */
const wrongCode = () => new ValidationError({ code: [{ rule: 'phone_code' }] });

/**
 * The signed-in user's mobile number: added (re-authenticated, as every new way to sign in), proved by an SMS
 * code, removed. A number is the account's as typed until its code is entered; verified, it signs in by SMS
 * code (account/phone-code) and belongs to this account alone.
 */
export class PhoneNumberService {
  constructor(private readonly deps: PhoneNumberServiceDeps) {}

  /** Sets the number (unverified, unless it is the verified one already) and texts it a code. */
  async add(
    auth: AuthContext,
    typed: string,
    proof: ReauthProof,
    client: ClientInfo,
  ): Promise<{ status: 'sent'; phone: string }> {
    if (!this.deps.sms.configured) throw new SmsNotConfiguredError();
    const number = this.deps.guard.number(typed);
    await this.deps.reauth.confirm(auth, proof, 'phone');
    const { user } = auth;
    if (await this.deps.phones.verifiedElsewhere(number.e164, user.id)) throw new PhoneInUseError();
    await this.deps.guard.admit(number, client.ip);
    const keepsVerified = user.phone === number.e164 && user.phone_verified;
    const message = await writeTransaction(this.deps.db, async (trx) => {
      await this.deps.phones.with(trx).set(user.id, number.e164, keepsVerified);
      const locale = client.locale ?? 'en';
      const address = profileCodeAddress(number.e164, user.id);
      const text = await this.deps.texts.issueWithin(trx, number.e164, 'verify_phone', locale, address);
      await this.deps.activity.record(
        { user, type: 'phone_added', client, details: { phone: maskPhone(number.e164) } },
        trx,
      );
      return text;
    });
    this.deps.texts.sendSoon(message);
    return { status: 'sent', phone: number.e164 };
  }

  /**
   * The code texted to the account's number: the number is verified, unless another account verified it
   * first (the unique index decides a race: exactly one of two accounts keeps it).
   */
  async verify(auth: AuthContext, code: string, client: ClientInfo): Promise<UserView> {
    const { user } = auth;
    const { phone } = user;
    if (phone === null) throw wrongCode();
    const guess = await this.deps.codes.guess(
      'phone',
      profileCodeAddress(phone, user.id),
      'verify_phone',
      code,
    );
    if (guess.kind !== 'right') throw wrongCode();
    try {
      const row = await writeTransaction(
        this.deps.db,
        async (trx) => {
          const verified = await this.deps.phones.with(trx).verify(user.id, phone);
          if (verified === undefined) return undefined;
          await writeAccountEvent(trx, 'user.phone_verified', user.id, { id: user.id, phone });
          await this.deps.activity.record(
            { user, type: 'phone_verified', client, details: { phone: maskPhone(phone) } },
            trx,
          );
          return verified;
        },
        (constraint) => (constraint === VERIFIED_PHONE_INDEX ? 'phone' : undefined),
      );
      if (row === undefined) throw wrongCode();
      return await this.deps.users.view(row);
    } catch (error) {
      if (error instanceof ValidationError && error.failures.phone !== undefined) throw new PhoneInUseError();
      throw error;
    }
  }

  /** Removes the number (re-authenticated: a verified one is a way to sign in). */
  async remove(auth: AuthContext, proof: ReauthProof, client: ClientInfo): Promise<UserView> {
    await this.deps.reauth.confirm(auth, proof, 'phone');
    const { user } = auth;
    const row = await writeTransaction(this.deps.db, async (trx) => {
      const updated = await this.deps.phones.with(trx).set(user.id, null, false);
      if (user.phone !== null) {
        await this.deps.activity.record(
          { user, type: 'phone_removed', client, details: { phone: maskPhone(user.phone) } },
          trx,
        );
      }
      return updated;
    });
    return this.deps.users.view(row);
  }
}
