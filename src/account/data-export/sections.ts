import type { UserRow } from '../../db/schema.js';
import { iso } from '../../lib/time.js';
import type { DevicesRepo } from '../../modules/devices/repo.js';
import type { GuardianRepo } from '../../modules/guardian/repo.js';
import type { IdentityRepo } from '../../modules/identity/repo.js';
import type { OneTimeTokensRepo } from '../../modules/lifecycle/repo.js';
import type { PasskeysRepo } from '../../modules/passkeys/repo.js';
import type { ProviderAccountsRepo } from '../../modules/providers/repo.js';
import type { SecondFactorRepo } from '../../modules/second-factor/repo.js';
import type { TokensRepo } from '../../modules/tokens/repo.js';
import type { UsersService } from '../../modules/users/service.js';
import type { DataExportsRepo } from './repo.js';

/**
 * One part of `account.json`: a key and a function reading one entity of the user. What the export holds
 * is the list of these (`accountSections`): a new kind of data is one more entry. A section never returns
 * a secret — no password hash, token, token hash, push token, second-factor secret or recovery code. What
 * grows without bound (consents, security events, pushes) is a file of its own instead (lists.ts).
 */
export interface AccountSection {
  name: string;
  read(user: UserRow): Promise<unknown>;
}

export interface SectionSources {
  users: UsersService;
  devices: DevicesRepo;
  tokens: TokensRepo;
  providers: Pick<ProviderAccountsRepo, 'linksOf'>;
  passkeys: Pick<PasskeysRepo, 'summariesFor'>;
  secondFactor: Pick<SecondFactorRepo, 'findTotp' | 'recoveryCodesLeft'>;
  oneTimeLinks: Pick<OneTimeTokensRepo, 'linksOf'>;
  exports: Pick<DataExportsRepo, 'listOf'>;
  guardian: Pick<GuardianRepo, 'consentsOf'>;
  identity: Pick<IdentityRepo, 'find'>;
}

const isoOrNull = (date: Date | null) => (date === null ? null : iso(date));

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
          last_used_at: isoOrNull(token.last_used_at),
          expires_at: isoOrNull(token.expires_at),
        })),
    },
    {
      // The identity each provider named the user by: it is data about them, and no credential.
      name: 'linked_providers',
      read: async (user) =>
        (await sources.providers.linksOf(user.id)).map((link) => ({
          provider: link.provider,
          provider_user_id: link.provider_user_id,
          linked_at: iso(link.created_at),
        })),
    },
    {
      // Names and dates only: the credential ids and public keys identify the authenticator, not the user.
      name: 'passkeys',
      read: async (user) =>
        (await sources.passkeys.summariesFor(user.id)).map((passkey) => ({
          name: passkey.name,
          created_at: iso(passkey.created_at),
          last_used_at: isoOrNull(passkey.last_used_at),
        })),
    },
    {
      // Whether it is on, never the secret or the recovery codes' hashes.
      name: 'second_factor',
      read: async (user) => {
        const totp = await sources.secondFactor.findTotp(user.id);
        const enabledAt = totp?.enabled_at ?? null;
        return {
          enabled: enabledAt !== null,
          enabled_at: isoOrNull(enabledAt),
          recovery_codes_left: enabledAt === null ? 0 : await sources.secondFactor.recoveryCodesLeft(user.id),
        };
      },
    },
    {
      // What the carrier verification showed and the service kept; never the CI's hash (it matches the
      // person across accounts, and is no information about them).
      name: 'identity_verification',
      read: async (user) => {
        const verification = await sources.identity.find(user.id);
        if (!verification) return { verified: false };
        return {
          verified: true,
          verified_at: iso(verification.verified_at),
          birth_date: verification.birth_date,
          foreigner: verification.foreigner,
          masked_name: verification.masked_name,
          one_account_per_person: verification.bound,
        };
      },
    },
    {
      name: 'deletion',
      read: async (user) => ({
        scheduled: user.deletion_scheduled_at !== null,
        scheduled_at: isoOrNull(user.deletion_scheduled_at),
        due_at: isoOrNull(user.deletion_due_at),
      }),
    },
    {
      // The verification, reset and deletion-cancel links mailed to the user: where and when, never the token.
      name: 'one_time_links',
      read: async (user) =>
        (await sources.oneTimeLinks.linksOf(user.id)).map((link) => ({
          purpose: link.purpose,
          email: link.email,
          created_at: iso(link.created_at),
          expires_at: iso(link.expires_at),
          used_at: isoOrNull(link.used_at),
        })),
    },
    {
      // A child's legal guardian's answers: how, when and to what; never the guardian's CI hash or address.
      name: 'guardian_consent',
      read: async (user) => ({
        state: user.guardian_consent,
        birth_date: user.birth_date,
        records: (await sources.guardian.consentsOf(user.id)).map((record) => ({
          method: record.method,
          agreed: record.agreed,
          documents: record.documents,
          answered_at: iso(record.answered_at),
          withdrawn_at: isoOrNull(record.withdrawn_at),
        })),
      }),
    },
    {
      name: 'data_exports',
      read: async (user) =>
        (await sources.exports.listOf(user.id)).map((entry) => ({
          id: entry.id,
          status: entry.status,
          created_at: iso(entry.created_at),
          ready_at: isoOrNull(entry.ready_at),
          expires_at: isoOrNull(entry.expires_at),
        })),
    },
  ];
}
