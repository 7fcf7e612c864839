import pg from 'pg';

/**
 * A subscription to a NOTIFY channel. `live` says whether every notification is known to arrive: false
 * until the LISTEN is in place and while its connection is down. Whoever keeps a copy of what a channel
 * announces trusts it only while live; `onNotify` is also called whenever one may have been missed.
 */
export interface Listening {
  readonly live: boolean;
}

/** Listens on `channel`: `onNotify` runs after each commit that sent a NOTIFY on it, by any process. */
export type Listen = (channel: string, onNotify: () => void) => Listening;

/** How long a lost LISTEN connection waits before it connects again, doubling up to the last. */
const RECONNECT_DELAYS_MS = [100, 1_000, 5_000, 30_000];

/**
 * The NOTIFY channels of a PostgreSQL server, on one connection of their own outside the pool (a LISTEN
 * belongs to its session, and a pooled connection is shared). Opened at the first `listen`; when it is lost
 * every listener is told (a notification may have been missed) and it connects again, telling them once
 * more when it is back.
 */
export class ServerNotifications {
  readonly #listeners = new Map<string, Set<() => void>>();
  #client: pg.Client | undefined;
  #connecting: Promise<void> | undefined;
  #live = false;
  #failures = 0;
  #retry: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(
    private readonly url: string,
    private readonly connectTimeoutMs: number,
  ) {}

  readonly listen: Listen = (channel, onNotify) => {
    let heard = this.#listeners.get(channel);
    if (!heard) {
      heard = new Set();
      this.#listeners.set(channel, heard);
      // A channel added while connected is listened to on the open connection.
      if (this.#client && this.#live) void this.#client.query(`LISTEN ${quoted(channel)}`).catch(() => {});
    }
    heard.add(onNotify);
    if (!this.#client && !this.#connecting) this.#connect();
    const notifications = this;
    return {
      get live() {
        return notifications.#live;
      },
    };
  };

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    await this.#connecting;
    const client = this.#client;
    this.#client = undefined;
    this.#live = false;
    await client?.end().catch(() => {});
  }

  #connect(): void {
    if (this.#closed) return;
    const client = new pg.Client({
      connectionString: this.url,
      connectionTimeoutMillis: this.connectTimeoutMs,
      keepAlive: true,
    });
    client.on('notification', (message) => this.#tell(message.channel));
    client.on('error', () => this.#lost(client));
    client.on('end', () => this.#lost(client));
    this.#client = client;
    this.#connecting = (async () => {
      await client.connect();
      for (const channel of this.#listeners.keys()) await client.query(`LISTEN ${quoted(channel)}`);
    })().then(
      () => {
        this.#connecting = undefined;
        if (this.#client !== client) return;
        this.#live = true;
        this.#failures = 0;
        // Whatever was announced before the LISTEN was in place.
        this.#tellAll();
      },
      () => {
        this.#connecting = undefined;
        this.#lost(client);
      },
    );
  }

  #lost(client: pg.Client): void {
    if (this.#client !== client) return;
    this.#client = undefined;
    this.#live = false;
    client.end().catch(() => {});
    this.#tellAll();
    if (this.#closed) return;
    const delay = RECONNECT_DELAYS_MS[Math.min(this.#failures++, RECONNECT_DELAYS_MS.length - 1)];
    this.#retry = setTimeout(() => this.#connect(), delay);
    this.#retry.unref();
  }

  #tell(channel: string): void {
    for (const onNotify of this.#listeners.get(channel) ?? []) onNotify();
  }

  #tellAll(): void {
    for (const channel of this.#listeners.keys()) this.#tell(channel);
  }
}

/** A channel's name as an identifier (LISTEN takes no parameter). */
function quoted(channel: string): string {
  return `"${channel.replaceAll('"', '""')}"`;
}
