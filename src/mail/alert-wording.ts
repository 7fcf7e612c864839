/** The facts one security alert is filled in with. */
export interface SecurityAlertValues {
  /** The user's name (user-controlled: escaped in HTML). */
  username: string;
  at: Date;
  /** A short device name ("Chrome on macOS"). */
  device: string;
  ip: string;
  /** The provider linked or unlinked. */
  provider?: string;
  /** The name of the passkey added or removed (user-controlled: escaped in HTML). */
  passkey?: string;
  /** An operator did it (the command line), not someone signed in to the account. */
  byOperator?: boolean;
  /** Where to go if it was not them: the password-reset page. */
  resetLink: string;
}

/** How one alert is worded in one language. */
export interface AlertWording {
  subject: string;
  /** What happened, in one sentence. */
  lead: (values: SecurityAlertValues) => string;
}
