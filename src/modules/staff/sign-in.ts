import { BlockList, isIP } from 'node:net';
import type { AllowedNetwork } from '../../config/console.js';
import { type Executor, writeTransaction } from '../../db/transaction.js';
import { InvalidCredentialsError } from '../../errors.js';
import type { StaffAuth } from '../../http/admin-endpoint.js';
import { newId } from '../../lib/ids.js';
import type { PasswordHasher } from '../../lib/passwords.js';
import { hashApiToken, newApiToken } from '../../lib/tokens.js';
import { clientAddressKey } from '../../limits/client-address.js';
import { NetworkRefusedError } from './errors.js';
import type { CeremonyOptions, PasskeyOffer, PasskeyProof, StaffPasskeys } from './passkeys.js';
import { permissionsOf } from './permissions.js';
import type { StaffRepo, StaffRow } from './repo.js';
import { staffRole } from './service.js';
import type { StaffSessionRepo } from './session-repo.js';

/** A staff session ends 12 hours after its sign-in, however busy. */
export const ABSOLUTE_SESSION_MS = 12 * 3_600_000;
/** Wrong passwords or codes in a row that lock the account. */
export const LOCK_AFTER = 5;
/** last_seen_at is written at most this often: an idle timeout of minutes needs no write per request. */
const TOUCH_EVERY_MS = 60_000;

/**
 * The TOTP of the users' second factor (account/second-factor/codes.ts SecondFactorCodes): the secret sealed
 * with SECRETS_KEY for one id, and a code's time step. The same code, not a copy, wired in services/staff.ts.
 */
export interface StaffTotp {
  seal(secret: Buffer, id: string): string;
  open(sealed: string, id: string): Buffer;
  stepOf(secret: Buffer, code: string): number | undefined;
}

export interface StaffSignInDeps {
  db: Executor;
  repo: StaffRepo;
  sessions: StaffSessionRepo;
  hasher: PasswordHasher;
  totp: StaffTotp;
  passkeys: StaffPasskeys;
  lockoutMs: number;
  idleTimeoutMs: number;
  allowedNetworks: AllowedNetwork[] | undefined;
  now?: () => number;
}

/** The second factor a sign-in offers: the authenticator app's code, or a passkey's answer. */
export type OfferedFactor = { code: string } | PasskeyOffer;

/** What a sign-in proved of the member's own factor: a code's time step, or a passkey's use. */
type FactorProof = { step: number } | { passkey: PasskeyProof };

/** A new session: the cookie's token (shown once) and who it signs in. */
export interface StaffSession {
  token: string;
  auth: StaffAuth;
}

/** The CSRF token of a session: derived from its secret token, so every instance can check it, none stores it. */
export function csrfTokenOf(token: string): string {
  return hashApiToken(`csrf:${token}`).toString('base64url');
}

/** Who a session row signs in. */
function authOf(
  sessionId: string,
  token: string,
  staff: { id: string; email: string; role: string },
): StaffAuth {
  const role = staffRole(staff.role);
  return {
    sessionId,
    staff: { id: staff.id, email: staff.email, role },
    permissions: permissionsOf(role),
    csrfToken: csrfTokenOf(token),
  };
}

/**
 * Staff enrollment, sign-in and sessions: a password AND the member's second factor (the TOTP code of an
 * authenticator app, or a passkey, chosen at enrollment) at every sign-in;
 * five wrong in a row lock the account for CONSOLE_LOCKOUT; sessions end after CONSOLE_IDLE_TIMEOUT unused or
 * 12 hours after the sign-in. Times come from `now` (a test moves it), never the database's clock.
 */
export class StaffSignIn {
  private readonly now: () => number;
  private readonly networks: BlockList | undefined;

  constructor(private readonly deps: StaffSignInDeps) {
    this.now = deps.now ?? Date.now;
    if (deps.allowedNetworks) {
      const list = new BlockList();
      for (const network of deps.allowedNetworks)
        list.addSubnet(network.address, network.prefix, network.family);
      this.networks = list;
    }
  }

  /** CONSOLE_ALLOWED_NETWORKS: refuses (403) a client address outside it; any address when unset. */
  admitAddress(ip: string): void {
    if (!this.networks) return;
    // The house's reading of an address (IPv4-mapped IPv6, ports, brackets), then the network check.
    const key = clientAddressKey(ip);
    const ipv4 = /^\d+\.\d+\.\d+\.\d+$/.test(key);
    const address = ipv4 ? key : ip.replace(/^\[|\](:\d+)?$/g, '').replace(/%.*$/, '');
    // An address that reads as none is in no network.
    if (isIP(address) === 0 || !this.networks.check(address, ipv4 ? 'ipv4' : 'ipv6'))
      throw new NetworkRefusedError();
  }

  /** A passkey sign-in's challenge (the password and the answer then go to signIn). */
  passkeySignInOptions(): Promise<CeremonyOptions<unknown>> {
    return this.deps.passkeys.signInOptions();
  }

  /**
   * Password and second factor, both every time. A wrong one of either counts (a code offered for a passkey
   * member is a wrong factor, and the reverse), and the answer never says which; the fifth in a row locks the
   * account. The counter is committed before the refusal is thrown. A locked account is answered as an
   * unknown address is, after a hash as long: an answer of its own would tell whoever tries five passwords
   * for an address that it belongs to a member. The member learns of the lockout from the sign-in page's
   * words, an admin from `accounts staff list`. What still sets a member's wrong try apart is the counter's
   * one short write beside the hash.
   */
  async signIn(input: {
    email: string;
    password: string;
    factor: OfferedFactor;
    clientAddress: string;
  }): Promise<StaffSession> {
    const row = await this.deps.repo.byEmail(input.email.trim().toLowerCase());
    // Before any refusal: a passkey's challenge is used up whoever it was offered for.
    const proof = await this.proveFactor(row, input.factor);
    if (
      !row ||
      row.enrolled_at === null ||
      row.disabled_at !== null ||
      row.password_hash === null ||
      row.second_factor === null
    ) {
      // As long as a real check: the answer's time does not tell who is staff.
      await this.deps.hasher.verifyNothing(input.password);
      throw new InvalidCredentialsError();
    }
    if (this.lockedAt(row, this.now())) {
      await this.deps.hasher.verifyNothing(input.password);
      throw new InvalidCredentialsError();
    }
    const passwordRight = await this.deps.hasher.verify(row.password_hash, input.password);
    const outcome = await writeTransaction(this.deps.db, async (trx) => {
      const repo = this.deps.repo.on(trx);
      const current = await repo.lockedById(row.id);
      if (!current) return 'wrong' as const;
      const now = this.now();
      if (this.lockedAt(current, now)) return 'locked' as const;
      const lastStep = current.totp_last_step === null ? -1 : Number(current.totp_last_step);
      // The right password with a right code already used (a double submit, or a sign-in in the minute of
      // the enrollment): refused, but no guess at either secret, so it does not count towards the lockout.
      if (passwordRight && proof && 'step' in proof && proof.step <= lastStep) return 'wrong' as const;
      if (!passwordRight || !proof) {
        // A lockout that has ended starts the count again.
        const failures = (current.locked_until === null ? current.failed_attempts : 0) + 1;
        const lock = failures >= LOCK_AFTER;
        await repo.update(row.id, {
          failed_attempts: lock ? 0 : failures,
          locked_until: lock ? new Date(now + this.deps.lockoutMs) : null,
        });
        return lock ? ('locked' as const) : ('wrong' as const);
      }
      if ('step' in proof) {
        await repo.update(row.id, { failed_attempts: 0, locked_until: null, totp_last_step: proof.step });
      } else {
        // Another sign-in with the same passkey came first (the counter moved): not a guess, not counted.
        if (!(await this.deps.passkeys.recordUse(trx, proof.passkey))) return 'wrong' as const;
        await repo.update(row.id, { failed_attempts: 0, locked_until: null });
      }
      return this.startSession(trx, current, input.clientAddress, now);
    });
    if (outcome === 'locked' || outcome === 'wrong') throw new InvalidCredentialsError();
    return outcome;
  }

  /** The session of a cookie's token, or undefined when unknown, ended (idle, absolute) or its member disabled. */
  async authenticate(token: string): Promise<StaffAuth | undefined> {
    const row = await this.deps.sessions.byTokenHash(hashApiToken(token));
    if (!row || row.disabled_at !== null) return undefined;
    const now = this.now();
    const idleFor = now - row.last_seen_at.getTime();
    if (now >= row.expires_at.getTime() || idleFor >= this.deps.idleTimeoutMs) {
      await this.deps.sessions.remove(row.id);
      return undefined;
    }
    if (idleFor >= TOUCH_EVERY_MS) await this.deps.sessions.touch(row.id, new Date(now));
    return authOf(row.id, token, { id: row.staff_id, email: row.email, role: row.role });
  }

  async signOut(sessionId: string): Promise<void> {
    await this.deps.sessions.remove(sessionId);
  }

  /** The member's own factor, proven by what was offered; the other kind of factor proves nothing. */
  private async proveFactor(
    row: StaffRow | undefined,
    factor: OfferedFactor,
  ): Promise<FactorProof | undefined> {
    if ('challengeId' in factor) {
      const passkey = await this.deps.passkeys.prove(
        factor,
        row?.second_factor === 'passkey' ? row : undefined,
      );
      return passkey && { passkey };
    }
    if (row?.second_factor !== 'totp' || row.totp_sealed === null) return undefined;
    const step = this.deps.totp.stepOf(this.deps.totp.open(row.totp_sealed, row.id), factor.code);
    return step === undefined ? undefined : { step };
  }

  private lockedAt(row: StaffRow, now: number): boolean {
    return row.locked_until !== null && row.locked_until.getTime() > now;
  }

  private async startSession(
    trx: Executor,
    row: StaffRow,
    clientAddress: string,
    now: number,
  ): Promise<StaffSession> {
    const sessions = this.deps.sessions.on(trx);
    await sessions.removeEnded(new Date(now), new Date(now - this.deps.idleTimeoutMs));
    const token = newApiToken();
    const id = newId();
    await sessions.insert({
      id,
      staffId: row.id,
      tokenHash: hashApiToken(token),
      clientAddress,
      now: new Date(now),
      expiresAt: new Date(now + ABSOLUTE_SESSION_MS),
    });
    return { token, auth: authOf(id, token, row) };
  }
}
