import type {
  PublicKeyCredentialCreationOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { isoBase64URL } from '@simplewebauthn/server/helpers';
import { type Executor, writeTransaction } from '../../db/transaction.js';
import { NotFoundError, ValidationError } from '../../errors.js';
import type { AuthContext } from '../../http/auth-context.js';
import { newId } from '../../lib/ids.js';
import { iso } from '../../lib/time.js';
import { writeAccountEvent } from '../../modules/account-events/outbox.js';
import type { WebAuthnChallengesRepo } from '../../modules/passkeys/challenges-repo.js';
import { CREDENTIAL_ID_INDEX, type PasskeySummary, type PasskeysRepo } from '../../modules/passkeys/repo.js';
import type { ClientInfo } from '../client.js';
import type { Reauthentication, ReauthProof } from '../reauth/service.js';
import type { SecurityActivity } from '../security-activity/recorder.js';
import { keepsAWayIn, type SignInMethodsReader } from '../sign-in-methods.js';
import type { AssertionOptions, PasskeyAssertions } from './assertions.js';
import { storedCredential } from './assertions.js';
import {
  CeremonyFailedError,
  CHALLENGE_TTL_MS,
  challengeHash,
  type WebAuthnCeremonies,
} from './ceremonies.js';
import { deviceName } from './device-name.js';

/** A passkey as its owner sees it (user/passkeys). */
export interface PasskeyView {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

function passkeyView(row: PasskeySummary): PasskeyView {
  return {
    id: row.id,
    name: row.name,
    created_at: iso(row.created_at),
    last_used_at: row.last_used_at === null ? null : iso(row.last_used_at),
  };
}

/** Passkeys one account may hold: more is no use to anyone, and keeps every list one short read. */
export const MAX_PASSKEYS = 20;

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const INVALID_RESPONSE = () => new ValidationError({ response: [{ rule: 'passkey_invalid' }] });

/** The challenge a registration response answers, read from its clientDataJSON (undefined if unreadable). */
function challengeOf(response: RegistrationResponseJSON): string | undefined {
  try {
    const clientData = JSON.parse(isoBase64URL.toUTF8String(response.response.clientDataJSON)) as unknown;
    const challenge = (clientData as { challenge?: unknown } | null)?.challenge;
    return typeof challenge === 'string' ? challenge : undefined;
  } catch {
    return undefined;
  }
}

/** What PasskeyManagement is built from. */
export interface PasskeyManagementDeps {
  db: Executor;
  passkeys: PasskeysRepo;
  challenges: WebAuthnChallengesRepo;
  ceremonies: WebAuthnCeremonies;
  assertions: PasskeyAssertions;
  reauth: Reauthentication;
  methods: SignInMethodsReader;
  /** Adding, renaming and removing are logged in their transaction; adding and removing are alerted. */
  activity: SecurityActivity;
}

/**
 * The signed-in user's passkeys: adding one (options, then the authenticator's answer), listing, renaming
 * and removing. Adding and removing change how the account signs in, so both need re-authentication; adding
 * asks for it with the options, before the authenticator makes a credential (a wrong password then costs
 * the user no orphaned credential on their device), and only that user may finish with the challenge.
 */
export class PasskeyManagement {
  constructor(private readonly deps: PasskeyManagementDeps) {}

  /** Options to make a passkey for this account, once the owner re-authenticated. */
  async registrationOptions(
    auth: AuthContext,
    proof: ReauthProof,
  ): Promise<{ options: PublicKeyCredentialCreationOptionsJSON }> {
    const { user } = auth;
    await this.deps.reauth.confirm(auth, proof, 'passkey');
    return writeTransaction(this.deps.db, async (trx) => {
      const passkeys = this.deps.passkeys.with(trx);
      const options = await this.deps.ceremonies.registrationOptions({
        userHandle: await passkeys.userHandle(user.id),
        userName: user.email,
        displayName: user.username,
        // The authenticator refuses to make a second credential for an account it already holds one of.
        exclude: (await passkeys.listFor(user.id)).map(storedCredential),
      });
      await this.deps.challenges.with(trx).insert({
        id: newId(),
        purpose: 'registration',
        userId: user.id,
        challengeHash: challengeHash(options.challenge),
        expiresAt: new Date(Date.now() + CHALLENGE_TTL_MS),
      });
      return { options };
    });
  }

  /** Stores the new passkey the authenticator made with options from registrationOptions. */
  async add(
    auth: AuthContext,
    response: RegistrationResponseJSON,
    name: string | undefined,
    client: ClientInfo,
  ): Promise<{ passkey: PasskeyView }> {
    const { user } = auth;
    const challenge = challengeOf(response);
    if (challenge === undefined) throw INVALID_RESPONSE();
    // Used up whatever follows; only a challenge made for this user, alive, counts.
    const consumed = await this.deps.challenges.consumeByHash(
      challengeHash(challenge),
      'registration',
      user.id,
    );
    if (consumed === undefined || consumed.expired) throw INVALID_RESPONSE();
    let credential: Awaited<ReturnType<WebAuthnCeremonies['verifyRegistration']>>;
    try {
      credential = await this.deps.ceremonies.verifyRegistration(response, consumed.challengeHash);
    } catch (error) {
      if (error instanceof CeremonyFailedError) throw INVALID_RESPONSE();
      throw error;
    }
    if (await this.deps.passkeys.findByCredentialId(credential.credentialId)) {
      throw new ValidationError({ response: [{ rule: 'passkey_registered' }] });
    }
    const { passkey, alert } = await writeTransaction(
      this.deps.db,
      async (trx) => {
        // The user's row locked: two adds in parallel cannot both pass the count.
        const methods = await this.deps.methods.lockedFor(trx, user.id);
        if (methods !== undefined && methods.passkeys >= MAX_PASSKEYS) {
          throw new ValidationError({ response: [{ rule: 'passkeys_max', params: { max: MAX_PASSKEYS } }] });
        }
        const passkey = await this.deps.passkeys.with(trx).insert({
          id: newId(),
          userId: user.id,
          ...credential,
          name: name ?? deviceName(client.userAgent),
        });
        await writeAccountEvent(trx, 'passkey.added', user.id, { user_id: user.id, passkey_id: passkey.id });
        const details = { passkey_id: passkey.id, passkey_name: passkey.name };
        const alert = await this.deps.activity.record({ user, type: 'passkey_added', client, details }, trx);
        return { passkey, alert };
      },
      // A race of two adds of one credential: the unique index settles it.
      (constraint) => (constraint === CREDENTIAL_ID_INDEX ? 'response' : undefined),
    );
    this.deps.activity.send(alert);
    return { passkey: passkeyView(passkey) };
  }

  async list(auth: AuthContext): Promise<{ passkeys: PasskeyView[] }> {
    return { passkeys: (await this.deps.passkeys.summariesFor(auth.user.id)).map(passkeyView) };
  }

  /** Renames one of the user's own passkeys (logged, not alerted: no way in changes); any other id is a 404. */
  async rename(
    auth: AuthContext,
    id: string,
    name: string,
    client: ClientInfo,
  ): Promise<{ passkey: PasskeyView }> {
    const { user } = auth;
    if (!UUID_PATTERN.test(id)) throw new NotFoundError('passkey');
    const passkey = await writeTransaction(this.deps.db, async (trx) => {
      const renamed = await this.deps.passkeys.with(trx).rename(user.id, id, name);
      if (renamed === undefined) return undefined;
      const details = { passkey_id: renamed.id, passkey_name: renamed.name };
      await this.deps.activity.record({ user, type: 'passkey_renamed', client, details }, trx);
      return renamed;
    });
    if (passkey === undefined) throw new NotFoundError('passkey');
    return { passkey: passkeyView(passkey) };
  }

  /**
   * Removes one of the user's own passkeys (any other id is a 404) once the owner re-authenticated, unless it
   * is the last way to sign in: no password, no linked provider and no other passkey (a 422 on `passkey`).
   */
  async remove(
    auth: AuthContext,
    id: string,
    proof: ReauthProof,
    client: ClientInfo,
  ): Promise<{ removed: true }> {
    const { user } = auth;
    await this.deps.reauth.confirm(auth, proof, 'passkey');
    if (!UUID_PATTERN.test(id)) throw new NotFoundError('passkey');
    const alert = await writeTransaction(this.deps.db, async (trx) => {
      const methods = await this.deps.methods.lockedFor(trx, user.id);
      if (methods === undefined) throw new NotFoundError('passkey');
      const passkeys = this.deps.passkeys.with(trx);
      // Said only of the user's own passkey: another id stays a plain 404.
      const removing = (await passkeys.summariesFor(user.id)).find((passkey) => passkey.id === id);
      if (removing === undefined) throw new NotFoundError('passkey');
      if (!keepsAWayIn(methods, { passkeys: 1 })) {
        throw new ValidationError({ passkey: [{ rule: 'last_passkey' }] });
      }
      if (!(await passkeys.delete(user.id, id))) throw new NotFoundError('passkey');
      await writeAccountEvent(trx, 'passkey.removed', user.id, { user_id: user.id, passkey_id: id });
      const details = { passkey_id: removing.id, passkey_name: removing.name };
      return this.deps.activity.record({ user, type: 'passkey_removed', client, details }, trx);
    });
    this.deps.activity.send(alert);
    return { removed: true };
  }

  /** A re-authentication challenge for this user, answerable by its passkeys only. */
  reauthOptions(auth: AuthContext): Promise<AssertionOptions> {
    return this.deps.assertions.options('reauthentication', auth.user.id);
  }
}
