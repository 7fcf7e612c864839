import type { ProfilePicture, UserRow } from '../../db/schema.js';
import {
  type Executor,
  type LostAnswerLookup,
  writeStatement,
  writeTransaction,
} from '../../db/transaction.js';
import { fieldOfUsersIndex } from '../../db/users-indexes.js';
import type { OutcomeCheck } from '../../db/write-outcome.js';
import { ValidationError } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import type { PasswordHasher } from '../../lib/passwords.js';
import type { QueuedMail } from '../../mail/mailer.js';
import type { SignUpConsents } from '../../modules/consents/repo.js';
import type { ConsentsService } from '../../modules/consents/service.js';
import { ageAtSignUp } from '../../modules/guardian/sign-up.js';
import {
  type AnswerRecorder,
  IdempotentRequest,
  type IdempotentWrites,
} from '../../modules/idempotency/key.js';
import type { ImagesService } from '../../modules/images/service.js';
import type { EmailVerificationService } from '../../modules/lifecycle/verification-service.js';
import type { OneTimeCodes } from '../../modules/one-time-codes/service.js';
import type { ProviderCredentials } from '../../modules/providers/credentials.js';
import type { ProvidersService } from '../../modules/providers/service.js';
import type { IssuedToken, TokensService } from '../../modules/tokens/service.js';
import type { NewAccount } from '../../modules/users/new-account.js';
import type { UsersRepo } from '../../modules/users/repo.js';
import type { UsersService } from '../../modules/users/service.js';
import type { SignedIn } from '../../modules/users/view.js';
import type { ClientInfo } from '../client.js';
import { emailSignUpEvents, writeUserCreated } from '../events/user-events.js';
import type { SecurityActivity } from '../security-activity/recorder.js';
import { CODE_SIGN_UP_TYPE, withSignUpCode } from './by-code.js';
import { providerCredentials, type RegisterInput } from './input.js';
import { slugCandidates } from './slugs.js';
import { writeEmailSignUp } from './write.js';

export type { RegisterInput } from './input.js';

/** A new account before its slug is chosen. */
type AccountToWrite = Omit<NewAccount, 'slug'> & Required<Pick<NewAccount, 'email_verified'>>;

/** What one write of a sign-up made: the user's row, its first token, and the mail to send after commit. */
interface Written {
  row: UserRow;
  token: IssuedToken;
  mail: QueuedMail | undefined;
}

/** Records a keyed sign-up's answer inside its write, from the row and the token it made. */
type SignUpRecorder = (trx: Executor, row: UserRow, token: IssuedToken) => Promise<void>;

/** How many times a derived slug is derived again after losing a race to another sign-up. */
const SLUG_ATTEMPTS = 3;

/** What a sign-up takes besides its parameters. */
export interface SignUpOptions {
  /** The request's `consent_<key>` parameters. */
  consentFields?: Readonly<Record<string, unknown>>;
  /** The request's Idempotency-Key header, when it sent one. */
  idempotencyKey?: string | undefined;
}

/** What SignUp is built from. */
export interface SignUpDeps {
  db: Executor;
  usersRepo: UsersRepo;
  users: UsersService;
  tokens: TokensService;
  hasher: PasswordHasher;
  images: ImagesService;
  providers: ProvidersService;
  verification: EmailVerificationService;
  /** The account's first security event (`account_created`): its device is then one the account knows. */
  activity: SecurityActivity;
  consents: ConsentsService;
  idempotency: IdempotentWrites;
  /** Whether a write whose answer was lost committed (none on the embedded database). */
  outcomes: OutcomeCheck | undefined;
  /** The codes a sign-up of type `email_code` is proved by. */
  codes: OneTimeCodes;
}

/**
 * Sign-up, by email and password or through an identity provider: one flow, top to bottom (`register`).
 * The account, its first token, its provider link and its verification mail are written all or none.
 */
export class SignUp {
  constructor(private readonly deps: SignUpDeps) {}

  /** The slugs to try for an email, in order (slugs.ts); a method so that a test can choose them. */
  slugCandidates(email: string): string[] {
    return slugCandidates(email);
  }

  /**
   * The first of `candidates` no user has (the last one when all are taken); one query for all. A provider
   * sign-up reads it before its transaction; an email sign-up picks it inside its one statement instead.
   */
  async firstFreeOf(candidates: string[]): Promise<string> {
    const [free] = await this.deps.usersRepo.freeSlugs(candidates);
    return free ?? (candidates.at(-1) as string);
  }

  /**
   * `consentFields`: the request's `consent_<key>` parameters (optional documents ticked); with
   * `user_agreement` the account agrees to every required document's current version. With an
   * `idempotencyKey`, a retry of a sign-up (the same key, email and parameters) gets the first answer, token
   * included, instead of "already taken"; the key is scoped by the lower-cased email.
   */
  async register(
    input: RegisterInput,
    client: ClientInfo,
    { consentFields = {}, idempotencyKey }: SignUpOptions = {},
  ): Promise<SignedIn> {
    // A consent field naming no optional document is refused before anything costly (no query without any).
    const optionalConsents = await this.deps.consents.signUpChoices(consentFields);
    // Without a key, exactly the path of every sign-up (register is a bench target).
    // A sign-up by code uses its code up first, and gives it back if the sign-up does not happen (by-code.ts).
    const { codes } = this.deps;
    if (idempotencyKey === undefined)
      return withSignUpCode(codes, input, () =>
        this.registerOnce(input, client, optionalConsents, undefined),
      );
    const request = new IdempotentRequest('register', input.email.toLowerCase(), idempotencyKey, input);
    return this.deps.idempotency.once(request, (record) =>
      withSignUpCode(codes, input, () => this.registerOnce(input, client, optionalConsents, record)),
    );
  }

  private async registerOnce(
    input: RegisterInput,
    client: ClientInfo,
    optionalConsents: string[],
    recordAnswer: AnswerRecorder<SignedIn> | undefined,
  ): Promise<SignedIn> {
    const credentials = providerCredentials(input);
    // The provider's word first, before anything is written (and before the slow hash): no account without
    // it, and whether an identity is registered is told only to someone who holds a token for it.
    const identity = credentials && (await this.deps.providers.confirmNewIdentity(credentials));
    // The provider's word that the user owns this very address (OIDC email_verified) stands for our mail.
    const emailVerified =
      input.type === CODE_SIGN_UP_TYPE ||
      (identity?.emailVerified === true && identity.email?.toLowerCase() === input.email.toLowerCase());
    // Hashed before any write (in the hashing processes, off the event loop): no connection is held meanwhile.
    const passwordHash = input.password === undefined ? null : await this.deps.hasher.hash(input.password);
    // The picture's files are written before the account and removed again if its write fails.
    const upload = input.profile_picture && { field: 'profile_picture', ...input.profile_picture };
    // A new account's providers are known without a query: the one it registered with, if any.
    const linked = credentials ? [credentials.provider] : [];
    const answer = async (row: UserRow, token: IssuedToken): Promise<SignedIn> => ({
      user: { ...(await this.deps.users.view(row, linked)), api_token: token.token },
    });
    const record: SignUpRecorder | undefined =
      recordAnswer && (async (trx, row, token) => recordAnswer(trx, row.id, await answer(row, token)));
    return this.deps.images.withStoredPicture(upload, async (picture) => {
      const { row, token, mail } = await this.withFreeSlug(input, (slugs) => {
        const account = this.accountOf(input, passwordHash, picture, emailVerified);
        const consents = this.deps.consents.signUpConsents(account.id, optionalConsents, client.ip);
        return input.type === 'email'
          ? this.writeEmailSignUp(account, slugs, client, consents, record)
          : this.writeProviderSignUp(account, slugs, client, credentials, consents, record);
      });
      this.deps.verification.send(mail);
      return answer(row, token);
    });
  }

  /**
   * Looks for the account on the primary when a sign-up's answer was lost: its id was made here, so its row
   * says whether the write committed (all of it: one statement, or one transaction).
   */
  private lostAnswerLookup(userId: string): LostAnswerLookup<UserRow> {
    return { check: this.deps.outcomes, find: (db) => this.deps.usersRepo.with(db).findById(userId) };
  }

  private accountOf(
    input: RegisterInput,
    passwordHash: string | null,
    picture: ProfilePicture | undefined,
    emailVerified: boolean,
  ): AccountToWrite {
    return {
      id: newId(),
      email: input.email,
      username: input.username,
      gender: input.gender,
      password_hash: passwordHash,
      profile_picture: picture ? JSON.stringify(picture) : null,
      email_verified: emailVerified,
      ...ageAtSignUp(input.birth_date, new Date()),
    };
  }

  /**
   * Runs `write` with the client's slug alone, or with the candidates to derive one from (the first free one
   * is taken). A derived slug can lose a race to another sign-up: derived again rather than fail the request.
   */
  private async withFreeSlug(
    input: RegisterInput,
    write: (slugs: string[]) => Promise<Written>,
  ): Promise<Written> {
    for (let attempt = 1; ; attempt++) {
      const slugs = input.slug === undefined ? this.slugCandidates(input.email) : [input.slug];
      try {
        return await write(slugs);
      } catch (error) {
        const slugTaken = error instanceof ValidationError && Object.keys(error.failures).join() === 'slug';
        if (!slugTaken || input.slug !== undefined || attempt >= SLUG_ATTEMPTS) throw error;
      }
    }
  }

  /**
   * The common sign-up — email and password, verification mailed — as one statement (write.ts): the
   * account, its API token, its verification token, the mail and the consent records, all or none.
   */
  private async writeEmailSignUp(
    account: AccountToWrite,
    slugs: string[],
    client: ClientInfo,
    consents: SignUpConsents,
    record: SignUpRecorder | undefined,
  ): Promise<Written> {
    const token = this.deps.tokens.prepareIssue(account.id, client.userAgent);
    const { token: verificationToken, mail } = this.deps.verification.prepare(account, client.locale ?? 'en');
    const rows = {
      account,
      slugs,
      token: token.row,
      verification: verificationToken,
      mail,
      event: this.deps.activity.prepareRegistration(account.id, client),
      consents,
      ...emailSignUpEvents(account, token.row),
    };
    const lookup = this.lostAnswerLookup(account.id);
    const row =
      record === undefined
        ? await writeStatement(() => writeEmailSignUp(this.deps.db, rows), fieldOfUsersIndex, lookup)
        : // With an Idempotency-Key, the same statement and the key's record, in one transaction.
          await writeTransaction(
            this.deps.db,
            async (trx) => {
              const written = await writeEmailSignUp(trx, rows);
              await record(trx, written, token.issued);
              return written;
            },
            fieldOfUsersIndex,
            lookup,
          );
    return { row, token: token.issued, mail: mail.queued };
  }

  /**
   * A provider sign-up (or one by code: no `credentials`) in one transaction: the account, its provider link,
   * its token, its consent records and — unless the provider or the code vouched for the address — the
   * verification mail. The slug is chosen before it opens.
   */
  private async writeProviderSignUp(
    account: AccountToWrite,
    slugs: string[],
    client: ClientInfo,
    credentials: ProviderCredentials | undefined,
    consents: SignUpConsents,
    record: SignUpRecorder | undefined,
  ): Promise<Written> {
    const slug = slugs.length === 1 ? (slugs[0] as string) : await this.firstFreeOf(slugs);
    return writeTransaction(
      this.deps.db,
      async (trx) => {
        const row = await this.deps.usersRepo.with(trx).insert({ ...account, slug });
        if (credentials) await this.deps.providers.linkWithin(trx, row.id, credentials);
        const method = credentials?.provider ?? CODE_SIGN_UP_TYPE;
        await writeUserCreated(trx, row, method, consents);
        const session = credentials ? 'provider' : CODE_SIGN_UP_TYPE;
        const token = await this.deps.tokens.issue(trx, row.id, client.userAgent, session);
        const created = { user: row, type: 'account_created' as const, client };
        await this.deps.activity.record({ ...created, details: { method } }, trx);
        await this.deps.consents.recordSignUpWithin(trx, consents);
        // The verification mail commits with the account, and is sent only once it has.
        const mail = account.email_verified
          ? undefined
          : await this.deps.verification.queueWithin(trx, row, client.locale ?? 'en', true);
        await record?.(trx, row, token);
        return { row, token, mail };
      },
      (constraint) =>
        fieldOfUsersIndex(constraint) ??
        (credentials && this.deps.providers.fieldOfIndex(credentials.provider, constraint)),
      this.lostAnswerLookup(account.id),
    );
  }
}
