import { sql } from 'kysely';
import type { DatabaseHandle } from '../../src/db/client.js';

export interface LoggedEvent {
  type: string;
  ip: string | null;
  user_agent: string | null;
  details: Record<string, unknown>;
}

/** The security events of a user, oldest first, as stored. */
export async function eventsOf(handle: DatabaseHandle, userId: string): Promise<LoggedEvent[]> {
  const { rows } = await sql<LoggedEvent>`
    SELECT type, ip, user_agent, details FROM security_events WHERE user_id = ${userId}::uuid
    ORDER BY at, id`.execute(handle.db);
  return rows;
}

/** How many events of each type a user has. */
export async function eventCounts(handle: DatabaseHandle, userId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const { type } of await eventsOf(handle, userId)) counts[type] = (counts[type] ?? 0) + 1;
  return counts;
}

/** A browser's user agent of the given family, so a test can sign in "from another device". */
export const USER_AGENTS = {
  chromeMac:
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
  safariIphone:
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1',
  firefoxWindows: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0',
  chromeAndroid:
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36',
  app: 'Accounts/3.2.0 (iPhone; iOS 18.1)',
} as const;
