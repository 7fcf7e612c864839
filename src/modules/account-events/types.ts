/*
 * The account events the app's other services receive (docs/events.md), each type with its `data`. Secrets
 * never appear in one: no token, password hash, TOTP secret or push token. Times are ISO 8601 strings.
 */

/** How an account came to be: an email sign-up or the identity provider it signed up with. */
export type SignUpMethod = 'email' | string;
/**
 * How a session was made: a password, an identity provider's token, a passkey, a first factor completed with
 * the second, a mailed link (a password reset's, a deletion cancel's), or a mailed or texted code.
 */
export type SessionMethod =
  | 'password'
  | 'provider'
  | 'passkey'
  | 'second_factor'
  | 'email_link'
  | 'email_code'
  | 'phone_code';
/** Why a session ended. */
export type SessionRevokedReason = 'logout' | 'revoked' | 'password_changed' | 'deletion';

/**
 * A consent given with the sign-up: a document's version agreed to. The account's initial state travels in
 * `user.created`; `consent.changed` tells of every change after it.
 */
export interface SignUpConsent {
  key: string;
  version: number;
  agreed: true;
}

/** Every event type and its `data`. */
export interface AccountEventData {
  'user.created': {
    id: string;
    email: string | null;
    username: string;
    slug: string;
    created_at: string;
    method: SignUpMethod;
    /** The consents agreed to with the sign-up (none for an imported account). */
    consents: SignUpConsent[];
  };
  /** `changed` names the fields that changed; `values` holds their new public values. */
  'user.updated': { id: string; changed: string[]; values: Record<string, unknown> };
  'user.email_verified': { id: string; email: string };
  'user.deletion_scheduled': { id: string; scheduled_for: string };
  'user.deletion_cancelled': { id: string };
  /** The id only: the receiver erases what it holds of this user. */
  'user.deleted': { id: string };
  'session.created': { user_id: string; session_id: string; method: SessionMethod };
  'session.revoked': { user_id: string; session_id: string; reason: SessionRevokedReason };
  'consent.changed': { user_id: string; key: string; version: number; agreed: boolean };
  'second_factor.enabled': { user_id: string };
  'second_factor.disabled': { user_id: string };
  'passkey.added': { user_id: string; passkey_id: string };
  'passkey.removed': { user_id: string; passkey_id: string };
  /** A child's legal guardian answered (`agreed`), or withdrew a consent (`agreed: false`, `withdrawn`). */
  'guardian.consented': { user_id: string; agreed: boolean; method: string; withdrawn: boolean };
  /** A carrier identity verification (PortOne) confirmed the account's person; never the CI or the name. */
  'user.identity_verified': { id: string; verified_at: string; adult: boolean };
  /** The account proved its mobile number (E.164) by a texted code; it now signs in by it. */
  'user.phone_verified': { id: string; phone: string };
}

export type AccountEventType = keyof AccountEventData;

/** Every type, in the order docs/events.md lists them (an endpoint with no `--events` receives all). */
export const ACCOUNT_EVENT_TYPES: readonly AccountEventType[] = [
  'user.created',
  'user.updated',
  'user.email_verified',
  'user.deletion_scheduled',
  'user.deletion_cancelled',
  'user.deleted',
  'session.created',
  'session.revoked',
  'consent.changed',
  'second_factor.enabled',
  'second_factor.disabled',
  'passkey.added',
  'passkey.removed',
  'guardian.consented',
  'user.identity_verified',
  'user.phone_verified',
];

export function isAccountEventType(value: string): value is AccountEventType {
  return (ACCOUNT_EVENT_TYPES as readonly string[]).includes(value);
}
