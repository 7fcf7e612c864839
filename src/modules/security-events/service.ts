import type { Executor } from '../../db/transaction.js';
import { newId } from '../../lib/ids.js';
import type { ActivityCursor, ActivityCursorCodec } from './cursor.js';
import { describeDevice, MAX_USER_AGENT_LENGTH } from './device.js';
import type { SecurityEventInsert, SecurityEventsRepo } from './repo.js';
import { type NewSecurityEvent, SECURITY_EVENT_TYPES } from './types.js';
import { type ActivityPage, securityEventView } from './view.js';

export interface ActivityRequest {
  limit: number;
  cursor: ActivityCursor | undefined;
}

/** Events deleted per statement by the prune: short statements, short locks. */
const PRUNE_BATCH = 1000;

function rowOf(event: NewSecurityEvent): SecurityEventInsert {
  const userAgent = event.client.userAgent?.slice(0, MAX_USER_AGENT_LENGTH) ?? null;
  return {
    id: newId(),
    userId: event.userId,
    type: event.type,
    // An operator's command has no request: no address rather than an empty one.
    ip: event.client.ip === '' ? null : event.client.ip,
    userAgent,
    deviceKey: describeDevice(userAgent).key,
    details: JSON.stringify(event.details ?? {}),
  };
}

/** The security activity log: appended by the account's actions, read by its owner, pruned by age. */
export class SecurityEventsService {
  constructor(
    private readonly events: SecurityEventsRepo,
    private readonly cursors: ActivityCursorCodec,
  ) {}

  /** An event's row, for a caller that writes it in one statement with others (an email sign-up). */
  prepare(event: NewSecurityEvent): SecurityEventInsert {
    return rowOf(event);
  }

  /** Appends `event` with `trx` (it commits with the caller's work) or on its own; counted kinds are bumped. */
  async append(event: NewSecurityEvent, trx?: Executor): Promise<void> {
    const repo = trx ? this.events.with(trx) : this.events;
    const row = rowOf(event);
    if (SECURITY_EVENT_TYPES[event.type].counted) await repo.insertCounted(row);
    else await repo.insert(row);
  }

  /** Appends a sign-in, deciding in the same statement whether it came from a new device (repo.insertSignIn). */
  appendSignIn(
    event: Omit<NewSecurityEvent, 'type'>,
    knownDevice: boolean,
    trx?: Executor,
  ): Promise<{ newDevice: boolean }> {
    const repo = trx ? this.events.with(trx) : this.events;
    return repo.insertSignIn(rowOf({ ...event, type: 'sign_in' }), knownDevice);
  }

  /** Takes the account's alert slot of `kind` when its last alert is `minutes` old or more (any instance). */
  claimAlertSlot(trx: Executor, userId: string, kind: string, minutes: number): Promise<boolean> {
    return this.events.with(trx).claimAlertSlot(userId, kind, minutes);
  }

  /**
   * One page of the user's own events, newest first. Reads one row more than the page holds: that row only
   * tells whether a page follows, so `next_cursor` is null exactly on the last page.
   */
  async list(userId: string, request: ActivityRequest): Promise<ActivityPage> {
    const rows = await this.events.page(userId, request.cursor, request.limit + 1);
    const page = rows.slice(0, request.limit);
    const last = page.at(-1);
    const next =
      rows.length > request.limit && last ? await this.cursors.encode({ at: last.at, id: last.id }) : null;
    return { events: page.map(securityEventView), next_cursor: next };
  }

  /** Deletes every event older than `days` days, a batch at a time; returns how many. */
  async prune(days: number): Promise<number> {
    let removed = 0;
    for (;;) {
      const batch = await this.events.pruneBatch(days, PRUNE_BATCH);
      removed += batch;
      if (batch < PRUNE_BATCH) return removed;
    }
  }
}
