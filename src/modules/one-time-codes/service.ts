import { hash, randomBytes, randomInt } from 'node:crypto';
import type { CodeChannel, CodePurpose } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import { newId } from '../../lib/ids.js';
import { hashApiToken, newApiToken } from '../../lib/tokens.js';
import type { Guess, OneTimeCodesRepo, UsedCode } from './repo.js';

/** How long a code and its link work. */
export const CODE_TTL_MS = 10 * 60 * 1000;
/** Wrong guesses a code takes before it stops working (its link with it). */
export const CODE_MAX_FAILURES = 5;

/** Six digits, uniformly drawn (leading zeros kept). */
export function newSixDigitCode(): string {
  return randomInt(0, 1_000_000).toString().padStart(6, '0');
}

/** What a new code is: the digits to send, the link's token, and how long both work. */
export interface IssuedCode {
  code: string;
  token: string;
  validForMs: number;
}

/**
 * The one-time codes of every channel (email now, SMS beside it later): issued per address, checked by
 * address and code or by the link's token, single use, 5 wrong guesses, 10 minutes. A code is stored as the
 * SHA-256 of a random salt and its digits (the salt keeps one table of a million digests from reading every
 * row at once), its token as a SHA-256. Both checks are one atomic statement each (repo.ts).
 */
export class OneTimeCodes {
  constructor(private readonly repo: OneTimeCodesRepo) {}

  /** A new code for the address (written with `trx`, beside the mail that carries it), ending the previous one. */
  async issueWithin(
    trx: Executor,
    channel: CodeChannel,
    address: string,
    purpose: CodePurpose,
  ): Promise<IssuedCode> {
    const code = newSixDigitCode();
    const token = newApiToken();
    const salt = randomBytes(16);
    await this.repo.with(trx).replace({
      id: newId(),
      channel,
      address: normalizedAddress(channel, address),
      purpose,
      codeSalt: salt,
      codeHash: hash('sha256', Buffer.concat([salt, Buffer.from(code, 'utf8')]), 'buffer'),
      tokenHash: hashApiToken(token),
      expiresAt: new Date(Date.now() + CODE_TTL_MS),
    });
    return { code, token, validForMs: CODE_TTL_MS };
  }

  /** A guess of the address's live code of `purpose`: used up when right, counted when wrong. */
  guess(channel: CodeChannel, address: string, purpose: CodePurpose, code: string): Promise<Guess> {
    return this.repo.guess(channel, normalizedAddress(channel, address), purpose, code, CODE_MAX_FAILURES);
  }

  /** The live code of a link's token, used up; undefined for a dead or unknown token. */
  useToken(channel: CodeChannel, token: string, purpose: CodePurpose): Promise<UsedCode | undefined> {
    return this.repo.useToken(channel, hashApiToken(token), purpose, CODE_MAX_FAILURES);
  }

  /** Makes a used code live again: what it was used for did not happen. */
  release(code: UsedCode): Promise<void> {
    return this.repo.release(code.id);
  }
}

/** Emails compared lower-cased (they are ASCII: validation/patterns.ts); numbers arrive in E.164 already. */
function normalizedAddress(channel: CodeChannel, address: string): string {
  return channel === 'email' ? address.toLowerCase() : address;
}
