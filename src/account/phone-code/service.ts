import type { UserWithProviders } from '../../db/schema.js';
import { type Executor, writeTransaction } from '../../db/transaction.js';
import { InvalidCredentialsError, SmsNotConfiguredError, ValidationError } from '../../errors.js';
import { parseMobileNumber } from '../../lib/phone-number.js';
import { accountKey, attemptKey } from '../../limits/rate-counter.js';
import type { OneTimeCodes } from '../../modules/one-time-codes/service.js';
import type { PhoneNumbersRepo } from '../../modules/users/phone-repo.js';
import type { UsersService } from '../../modules/users/service.js';
import type { SmsGuard } from '../../sms/guard.js';
import type { SmsSender } from '../../sms/sender.js';
import type { ClientInfo } from '../client.js';
import type { FreshSessionWindow } from '../email-code/service.js';
import type { PhoneCodeTexts } from '../phone/code-sms.js';
import type { SecurityActivity } from '../security-activity/recorder.js';
import { refused, type SignInOutcome } from '../sign-in/admission.js';
import { LoginAttempts, type LoginLimits } from '../sign-in/login-attempts.js';
import type { SessionGate } from '../sign-in/session-gate.js';
import type { SignInTokens } from '../sign-in/tokens.js';

/** What PhoneCodeSignIn is built from. */
export interface PhoneCodeSignInDeps {
  db: Executor;
  codes: OneTimeCodes;
  texts: PhoneCodeTexts;
  phones: PhoneNumbersRepo;
  users: UsersService;
  sms: SmsSender;
  guard: SmsGuard;
  allowedCountries: readonly string[];
  /** The login's failure counters: a wrong code counts like a wrong password. */
  limits: LoginLimits;
  gate: SessionGate;
  sessionTokens: SignInTokens;
  activity: SecurityActivity;
  window: { windows: FreshSessionWindow; durationMs: number };
}

/**
 * Sign-in by a code texted to an account's verified mobile number, as sign-in by a mailed code
 * (account/email-code): asking answers the same, in the same time, for every number (the number is checked
 * and counted; the account is looked up and the code sent once the answer is written), and the code goes
 * through the one session gate (second factor, disabled, deletion scheduled).
 */
export class PhoneCodeSignIn {
  private readonly attempts: LoginAttempts;

  constructor(private readonly deps: PhoneCodeSignInDeps) {
    this.attempts = new LoginAttempts(deps.limits);
  }

  /** Checks and counts the number (422, 429), then texts a code after the answer if an account verified it. */
  async request(typed: string, client: ClientInfo): Promise<void> {
    if (!this.deps.sms.configured) throw new SmsNotConfiguredError();
    const number = this.deps.guard.number(typed);
    await this.deps.guard.admit(number, client.ip);
    this.deps.sms.afterAnswer('phone code', () => this.textCode(number.e164, client));
  }

  private async textCode(e164: string, client: ClientInfo): Promise<void> {
    const account = await this.deps.phones.findWithProvidersByVerifiedPhone(e164);
    if (account === undefined) return;
    const locale = client.locale ?? 'en';
    const message = await writeTransaction(this.deps.db, (trx) =>
      this.deps.texts.issueWithin(trx, e164, 'login', locale),
    );
    this.deps.texts.sendSoon(message);
  }

  /** The number and its code, answered as the email login is (a session, the second factor, a refusal). */
  verify(proof: { phone: string; code: string }, client: ClientInfo): Promise<SignInOutcome> {
    const parsed = parseMobileNumber(proof.phone, this.deps.allowedCountries);
    if ('refused' in parsed) throw new ValidationError({ phone: [{ rule: parsed.refused }] });
    const { e164 } = parsed.number;
    const identifier = `phone:${e164}`;
    return this.attempts.run(
      { pair: attemptKey(identifier, client.ip), account: async () => accountKey(identifier) },
      async () => {
        const guess = await this.deps.codes.guess('phone', e164, 'login', proof.code);
        const holder = await this.deps.phones.findWithProvidersByVerifiedPhone(e164);
        if (guess.kind === 'right' && holder !== undefined) return this.signIn(holder, client);
        if (holder) await this.deps.activity.recordFailedSignIn(holder.id, 'phone_code', client);
        return refused(new InvalidCredentialsError());
      },
      (error) => error instanceof InvalidCredentialsError,
    );
  }

  /** The code proved the number of `user`: through the gate to a session. */
  private async signIn(user: UserWithProviders, client: ClientInfo): Promise<SignInOutcome> {
    const knownDevice = await this.deps.sessionTokens.isKnownDevice(client.deviceToken, user.id);
    const answer = await this.deps.gate.admit(
      user,
      { method: 'phone_code', knownDevice },
      { factors: 1, purpose: 'sign_in' },
    );
    if (answer.kind === 'second_factor') return answer;
    if (answer.kind === 'refused') return refused(answer.error);
    const issue = await this.deps.sessionTokens.afterOneFactor(
      user.id,
      client.userAgent,
      'phone_code',
      async (trx) => ({
        alert: await this.deps.activity.recordSignIn(
          { user, method: 'phone_code', client, knownDevice },
          trx,
        ),
      }),
    );
    if (issue.kind === 'refused') return refused(issue.error);
    if (issue.kind !== 'issued') return refused(new InvalidCredentialsError());
    this.deps.activity.send(issue.alongside.alert);
    const { windows, durationMs } = this.deps.window;
    await windows.open(issue.token.id, durationMs, 1);
    const view = await this.deps.users.view(user, user.linked_providers);
    return { kind: 'session', signedIn: { user: { ...view, api_token: issue.token.token } } };
  }
}
