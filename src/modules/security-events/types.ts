/**
 * Every kind of security event, and what the log does with it. A new kind (a second factor enrolled, say) is
 * one line here; `counted` kinds keep one row per account per COUNT_WINDOW_MINUTES carrying a count instead
 * of a row per occurrence (a password-guessing burst must not flood the log or the table).
 */
export const SECURITY_EVENT_TYPES = {
  account_created: { counted: false },
  sign_in: { counted: false },
  sign_in_failed: { counted: true },
  password_changed: { counted: false },
  password_reset: { counted: false },
  email_changed: { counted: false },
  email_verified: { counted: false },
  provider_linked: { counted: false },
  provider_unlinked: { counted: false },
  token_revoked: { counted: false },
  consent_changed: { counted: false },
  deletion_requested: { counted: false },
  deletion_cancelled: { counted: false },
  export_requested: { counted: false },
  passkey_added: { counted: false },
  passkey_removed: { counted: false },
  passkey_renamed: { counted: false },
  second_factor_enabled: { counted: false },
  second_factor_disabled: { counted: false },
  recovery_codes_regenerated: { counted: false },
  guardian_requested: { counted: false },
  guardian_consented: { counted: false },
  guardian_refused: { counted: false },
  guardian_withdrawn: { counted: false },
  identity_verified: { counted: false },
  identity_released: { counted: false },
  phone_added: { counted: false },
  phone_verified: { counted: false },
  phone_removed: { counted: false },
} as const satisfies Record<string, { counted: boolean }>;

export type SecurityEventType = keyof typeof SECURITY_EVENT_TYPES;

/** A counted event's window: one row per account and window, whatever the number of occurrences. */
export const COUNT_WINDOW_MINUTES = 10;

/** The kinds of event that mark a device as one the account used (the new-device check reads these). */
export const DEVICE_EVENT_TYPES: readonly SecurityEventType[] = ['sign_in', 'account_created'];

/** JSON values an event's details may hold (what the list shows as they are). */
export type EventDetails = Record<string, string | number | boolean | null>;

/** Who did it: the address the per-IP limits see and the user agent, as the request gave them. */
export interface EventClient {
  ip: string;
  userAgent: string | undefined;
}

/** One event to append. */
export interface NewSecurityEvent {
  userId: string;
  type: SecurityEventType;
  client: EventClient;
  details?: EventDetails;
}
