import type { ValidatedImage } from '../../modules/images/probe.js';
import { type ProviderCredentials, requiredCredentialsIn } from '../../modules/providers/credentials.js';

/** What register takes, as its rules read it. */
export interface RegisterInput {
  type: string;
  email: string;
  username: string;
  slug?: string | undefined;
  gender: number;
  password?: string | undefined;
  /** `YYYY-MM-DD`: under 14, the account waits for a guardian (ageAtSignUp). */
  birth_date?: string | undefined;
  /** The picture with what the image rule read of its header (it is not read twice). */
  profile_picture?: ValidatedImage | undefined;
  /** For a provider type: `<type>_user_id` and `<type>_access_token`, among the other parameters. */
  [field: string]: unknown;
}

/** The provider credentials of a provider-type registration; undefined for `email`. */
export function providerCredentials(input: RegisterInput): ProviderCredentials | undefined {
  // The rules make both fields required for every provider type.
  return input.type === 'email' || input.type === 'email_code'
    ? undefined
    : requiredCredentialsIn(input, input.type);
}
