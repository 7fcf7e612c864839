import type { ConsentHistoryCursor, ConsentHistoryRecord, ConsentHistoryRepo } from './history-repo.js';

/** Records read per query: a long history is never held in memory whole. */
const PAGE = 200;

/** One record of a user's consent history as an operator sees it and proves it. */
export interface ConsentHistoryEntry {
  key: string;
  version: number;
  agreed: boolean;
  at: string;
  channel: string;
  client_address: string | null;
  reminded_at: string | null;
}

/**
 * A user's whole consent history, every record as it was appended (agreements and withdrawals alike), by
 * document and then in the order made: what an operator shows to prove what the user agreed to and when.
 */
export class ConsentHistory {
  constructor(private readonly repo: ConsentHistoryRepo) {}

  async *entries(userId: string): AsyncGenerator<ConsentHistoryEntry> {
    let after: ConsentHistoryCursor | undefined;
    for (;;) {
      const page: ConsentHistoryRecord[] = await this.repo.page(userId, after, PAGE);
      for (const record of page) {
        yield {
          key: record.key,
          version: record.version,
          agreed: record.agreed,
          at: record.recorded_at.toISOString(),
          channel: record.channel,
          client_address: record.client_address,
          reminded_at: record.reminded_at?.toISOString() ?? null,
        };
      }
      const last = page.at(-1);
      if (page.length < PAGE || !last) return;
      after = { key: last.key, id: last.id };
    }
  }
}
