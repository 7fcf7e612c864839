import type { AgreedConsents, SecurityEventRow, UserRow } from '../../db/schema.js';
import { NotFoundError } from '../../errors.js';
import { isAdult } from '../../lib/age.js';
import { iso } from '../../lib/time.js';
import type { ConsentHistoryRecord } from '../../modules/consents/history-repo.js';
import type { StoredVerification } from '../../modules/identity/repo.js';
import type { PasskeySummary } from '../../modules/passkeys/repo.js';
import { birthYear, maskAddress, maskEmail, maskPhone } from './masking.js';
import {
  type AccountEventSummary,
  type DeviceSummaryRow,
  OVERVIEW_LIST_LIMIT,
  type SessionSummary,
} from './overview-repo.js';
import type { StaffActor, StaffGate } from './staff-access.js';

/** What a user's page reads, each one statement of the module that owns the data (wired in services/). */
export interface OverviewSources {
  user(id: string): Promise<UserRow | undefined>;
  providerLinks(userId: string): Promise<{ provider: string; created_at: Date }[]>;
  passkeys(userId: string): Promise<PasskeySummary[]>;
  secondFactorOn(userId: string): Promise<boolean>;
  securityEvents(userId: string, limit: number): Promise<SecurityEventRow[]>;
  consentRecords(userId: string, limit: number): Promise<ConsentHistoryRecord[]>;
  identity(userId: string): Promise<StoredVerification | undefined>;
  sessions(userId: string, limit: number): Promise<SessionSummary[]>;
  devices(userId: string, limit: number): Promise<DeviceSummaryRow[]>;
  accountEvents(userId: string, limit: number): Promise<AccountEventSummary[]>;
}

/** The consent records shown: a page of the (user_id, key, id) index, by document. */
const CONSENT_RECORD_LIMIT = 50;
const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const isoOrNull = (date: Date | null) => (date === null ? null : iso(date));

/** A user's page as staff see it: personal data masked, never a secret, the CI or its hash. */
export interface UserOverview {
  profile: {
    id: string;
    email: string;
    email_verified: boolean;
    /** Masked (`010-****-5678`); shown in full by the reveal action. */
    phone: string | null;
    phone_verified: boolean;
    username: string;
    slug: string;
    gender: number;
    is_inspirer: boolean;
    birth_year: string | null;
    created_at: string;
    updated_at: string;
    disabled_at: string | null;
  };
  sign_in: {
    has_password: boolean;
    providers: { provider: string; linked_at: string }[];
    passkeys: { id: string; name: string; created_at: string; last_used_at: string | null }[];
    second_factor: boolean;
  };
  devices: {
    device_id: string;
    platform: string | null;
    app_version: string | null;
    os_version: string | null;
    push_enabled: boolean;
    has_push_token: boolean;
    updated_at: string;
  }[];
  sessions: {
    id: string;
    name: string | null;
    created_at: string;
    last_used_at: string | null;
    expires_at: string | null;
  }[];
  security_activity: { id: string; type: string; at: string; ip: string | null; user_agent: string | null }[];
  consents: {
    /** Every version of each document the account agreed to, by document key. */
    agreed: AgreedConsents;
    records: { key: string; version: number; agreed: boolean; at: string; channel: string }[];
  };
  identity: {
    verified: boolean;
    verified_at: string | null;
    adult: boolean | null;
    foreigner: boolean | null;
    guardian_consent: 'pending' | 'granted' | null;
  };
  deletion: { scheduled: boolean; scheduled_at: string | null; due_at: string | null };
  account_events: { id: string; type: string; occurred_at: string }[];
}

/**
 * A user's page: one call reads each part once, concurrently, each list bounded — no
 * query per row. Recorded as one `users.view` access; showing a masked field in full is `reveal`.
 */
export class ConsoleUserOverview {
  constructor(
    private readonly sources: OverviewSources,
    private readonly gate: StaffGate,
  ) {}

  async overview(actor: StaffActor, userId: string): Promise<UserOverview> {
    const subjectId = UUID_SHAPE.test(userId) ? userId.toLowerCase() : null;
    const access = {
      permission: 'users.read',
      action: 'users.view',
      subjectId,
      reasonRequired: false,
    } as const;
    return this.gate.run(actor, access, async () => {
      const user = subjectId === null ? undefined : await this.sources.user(subjectId);
      if (!user) throw new NotFoundError('user');
      return this.read(user);
    });
  }

  private async read(user: UserRow): Promise<UserOverview> {
    const id = user.id;
    const limit = OVERVIEW_LIST_LIMIT;
    const [links, passkeys, secondFactor, events, records, identity, sessions, devices, accountEvents] =
      await Promise.all([
        this.sources.providerLinks(id),
        this.sources.passkeys(id),
        this.sources.secondFactorOn(id),
        this.sources.securityEvents(id, limit),
        this.sources.consentRecords(id, CONSENT_RECORD_LIMIT),
        this.sources.identity(id),
        this.sources.sessions(id, limit),
        this.sources.devices(id, limit),
        this.sources.accountEvents(id, limit),
      ]);
    return {
      profile: {
        id,
        email: maskEmail(user.email),
        email_verified: user.email_verified,
        phone: user.phone === null ? null : maskPhone(user.phone),
        phone_verified: user.phone_verified,
        username: user.username,
        slug: user.slug,
        gender: user.gender,
        is_inspirer: user.is_inspirer,
        birth_year: birthYear(user.birth_date),
        created_at: iso(user.created_at),
        updated_at: iso(user.updated_at),
        disabled_at: isoOrNull(user.disabled_at),
      },
      sign_in: {
        has_password: user.password_hash !== null,
        providers: links.map((link) => ({ provider: link.provider, linked_at: iso(link.created_at) })),
        passkeys: passkeys.map((passkey) => ({
          id: passkey.id,
          name: passkey.name,
          created_at: iso(passkey.created_at),
          last_used_at: isoOrNull(passkey.last_used_at),
        })),
        second_factor: secondFactor,
      },
      devices: devices.map((device) => ({ ...device, updated_at: iso(device.updated_at) })),
      sessions: sessions.map((session) => ({
        id: session.id,
        name: session.name,
        created_at: iso(session.created_at),
        last_used_at: isoOrNull(session.last_used_at),
        expires_at: isoOrNull(session.expires_at),
      })),
      security_activity: events.map((event) => ({
        id: event.id,
        type: event.type,
        at: iso(event.at),
        ip: event.ip === null ? null : maskAddress(event.ip),
        user_agent: event.user_agent,
      })),
      consents: {
        agreed: user.agreed_consents,
        records: records.map((record) => ({
          key: record.key,
          version: record.version,
          agreed: record.agreed,
          at: iso(record.recorded_at),
          channel: record.channel,
        })),
      },
      identity: {
        verified: identity !== undefined,
        verified_at: identity === undefined ? null : iso(identity.verified_at),
        adult: isAdult(user.birth_date, new Date()),
        foreigner: identity?.foreigner ?? null,
        guardian_consent: user.guardian_consent,
      },
      deletion: {
        scheduled: user.deletion_scheduled_at !== null,
        scheduled_at: isoOrNull(user.deletion_scheduled_at),
        due_at: isoOrNull(user.deletion_due_at),
      },
      account_events: accountEvents.map((event) => ({
        id: event.id,
        type: event.type,
        occurred_at: iso(event.occurred_at),
      })),
    };
  }
}
