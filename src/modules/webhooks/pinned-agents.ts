import http from 'node:http';
import https from 'node:https';
import type { ResolvedTarget } from './address-guard.js';

/** Agents kept at most: endpoints are few, but a name's addresses may change; the least recently used goes. */
const MAX_AGENTS = 64;
/** An idle connection is closed after this long: receivers commonly close theirs after 5 s. */
const IDLE_MS = 4_000;
/**
 * Connections per agent: more than an endpoint's attempts in flight (attempt-pool.ts), as endpoints with one
 * origin and address share an agent.
 */
const MAX_SOCKETS = 10;

/**
 * Keep-alive agents, one per target origin and checked address. A connection is reused only by attempts
 * whose host resolved, and was checked, to the address it was opened to: reuse never skips the check made
 * at every attempt, and a name that moves to another address gets another agent. Reuse spares the receiver
 * and this service a connection per delivery, most of what a delivery cost both under load.
 */
export class PinnedAgents {
  readonly #agents = new Map<string, http.Agent>();

  agentFor(url: URL, target: ResolvedTarget): http.Agent {
    const key = `${url.protocol}//${url.host} ${target.address}`;
    let agent = this.#agents.get(key);
    if (agent !== undefined) {
      // Most recently used last: the map's order is the eviction order.
      this.#agents.delete(key);
    } else {
      const options = {
        keepAlive: true,
        timeout: IDLE_MS,
        maxSockets: MAX_SOCKETS,
        maxFreeSockets: MAX_SOCKETS,
      };
      agent = url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    }
    this.#agents.set(key, agent);
    for (const [oldest, old] of this.#agents) {
      if (this.#agents.size <= MAX_AGENTS) break;
      this.#agents.delete(oldest);
      old.destroy();
    }
    return agent;
  }

  close(): void {
    for (const agent of this.#agents.values()) agent.destroy();
    this.#agents.clear();
  }
}
