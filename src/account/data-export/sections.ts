import type { UserRow } from '../../db/schema.js';
import { iso } from '../../lib/time.js';
import type { DevicesRepo } from '../../modules/devices/repo.js';
import type { ProviderAccountsRepo } from '../../modules/providers/repo.js';
import type { TokensRepo } from '../../modules/tokens/repo.js';
import type { UsersService } from '../../modules/users/service.js';

/**
 * One part of `account.json`: a key and a function reading one entity of the user. What the export holds
 * is the list of these (`accountSections`): a new kind of data is one more entry. A section never returns
 * a secret — no password hash, token, token hash or push token.
 */
export interface AccountSection {
  name: string;
  read(user: UserRow): Promise<unknown>;
}

export interface SectionSources {
  users: UsersService;
  devices: DevicesRepo;
  tokens: TokensRepo;
  providers: ProviderAccountsRepo;
}

/** The sections of `account.json`, in the order they appear. */
export function accountSections(sources: SectionSources): AccountSection[] {
  return [
    // The user object as the API shows it to its owner (has_password, never the hash).
    { name: 'profile', read: (user) => sources.users.view(user) },
    {
      name: 'email_verification',
      read: async (user) => ({ email: user.email, verified: user.email_verified }),
    },
    {
      name: 'devices',
      read: async (user) =>
        (await sources.devices.listByUser(user.id)).map((device) => ({
          device_id: device.device_id,
          platform: device.platform,
          // Whether one is registered, never the token: it addresses this phone for pushes.
          has_push_token: device.push_token !== null,
          push_enabled: device.push_enabled,
          app_version: device.app_version,
          os_version: device.os_version,
          locale: device.locale,
          timezone: device.timezone,
          created_at: iso(device.created_at),
          updated_at: iso(device.updated_at),
        })),
    },
    {
      name: 'api_tokens',
      read: async (user) =>
        (await sources.tokens.listLive(user.id)).map((token) => ({
          id: token.id,
          name: token.name,
          created_at: iso(token.created_at),
          last_used_at: token.last_used_at === null ? null : iso(token.last_used_at),
          expires_at: token.expires_at === null ? null : iso(token.expires_at),
        })),
    },
    { name: 'linked_providers', read: (user) => sources.providers.namesFor(user.id) },
  ];
}
