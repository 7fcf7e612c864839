import { sql } from 'kysely';
import type { Executor } from '../../db/transaction.js';

/** The newest items of each list a user's page shows: enough to help, never the whole history. */
export const OVERVIEW_LIST_LIMIT = 20;

export interface SessionSummary {
  id: string;
  name: string | null;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
}

export interface DeviceSummaryRow {
  device_id: string;
  platform: string | null;
  app_version: string | null;
  os_version: string | null;
  push_enabled: boolean;
  has_push_token: boolean;
  updated_at: Date;
}

export interface AccountEventSummary {
  id: string;
  type: string;
  occurred_at: Date;
}

/**
 * The lists of a user's page that the modules read whole for their owner (sessions, devices) or not at all
 * (account events), each here as one statement on the user's index with a LIMIT: a page costs the same for
 * a user with ten sessions and one with ten thousand.
 */
export class OverviewRepo {
  constructor(private readonly db: Executor) {}

  /** The live sessions, newest first, on the (user_id, created_at) index. */
  sessions(userId: string, limit: number): Promise<SessionSummary[]> {
    return this.db
      .selectFrom('api_tokens')
      .select(['id', 'name', 'created_at', 'last_used_at', 'expires_at'])
      .where('user_id', '=', userId)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  /** The registered devices, last updated first; whether a push token is set, never the token. */
  devices(userId: string, limit: number): Promise<DeviceSummaryRow[]> {
    return this.db
      .selectFrom('devices')
      .select([
        'device_id',
        'platform',
        'app_version',
        'os_version',
        'push_enabled',
        sql<boolean>`push_token IS NOT NULL`.as('has_push_token'),
        'updated_at',
      ])
      .where('user_id', '=', userId)
      .orderBy('updated_at', 'desc')
      .limit(limit)
      .execute();
  }

  /** The newest account events (type and time; their data stays with the webhooks), on (user_id, occurred_at). */
  accountEvents(userId: string, limit: number): Promise<AccountEventSummary[]> {
    return this.db
      .selectFrom('account_events')
      .select(['id', 'type', 'occurred_at'])
      .where('user_id', '=', userId)
      .orderBy('occurred_at', 'desc')
      .limit(limit)
      .execute();
  }
}
