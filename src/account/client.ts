import type { Locale } from '../validation/messages.js';

/** Who is asking: the user agent names the token in the user's session list; the IP keys login throttling. */
export interface ClientInfo {
  userAgent: string | undefined;
  ip: string;
  /**
   * The api_token the login request presented, if any: when it was issued to the same account (live or
   * expired, not revoked), the request comes from a device the owner signed in on before.
   */
  deviceToken?: string | undefined;
  /** The language of any mail the request sends (Accept-Language); English when absent. */
  locale?: Locale;
}
