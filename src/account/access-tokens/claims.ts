import { isAdult } from '../../lib/age.js';
import type { LiveSession } from '../../modules/tokens/session-repo.js';

/**
 * RFC 8176 authentication method references for each way a session is opened. A provider's sign-in has
 * no registered value: `fed` (federated, as Microsoft Entra writes it) says the provider authenticated.
 */
const AMR: Record<string, string[]> = {
  password: ['pwd'],
  provider: ['fed'],
  passkey: ['hwk', 'user'],
  second_factor: ['mfa', 'otp'],
  email_link: ['otp'],
  // RFC 8176 `sms`: a code texted to the account's verified number.
  phone_code: ['sms'],
};

/** The session's claims an access token and an introspection carry: nothing more personal than these. */
export interface SessionClaims {
  sub: string;
  sid: string;
  auth_time: number;
  amr: string[];
  email_verified: boolean;
  identity_verified: boolean;
  adult: boolean | null;
}

export const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

export function sessionClaims(session: LiveSession, now: Date): SessionClaims {
  const { user } = session;
  return {
    sub: user.id,
    sid: session.tokenId,
    auth_time: seconds(session.createdAt),
    amr: AMR[session.signInMethod ?? ''] ?? [],
    email_verified: user.email_verified,
    identity_verified: user.identity_verified_at !== null,
    adult: isAdult(user.birth_date, now),
  };
}
