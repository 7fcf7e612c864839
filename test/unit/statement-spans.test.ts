import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';
import { describe, expect, it } from 'vitest';
import { tracedPool } from '../../src/db/statement-spans.js';
import { noTracing, type SpanAttributes, type Tracing } from '../../src/lib/tracing.js';

interface Ended {
  name: string;
  attributes: SpanAttributes;
  failed: boolean;
}

/** A pool of one client whose statements answer `rows` (or fail with `failure`), and what it was asked. */
function fakePool(answer: { rows: unknown[] } | { failure: Error }) {
  const asked: string[] = [];
  const client: PostgresPoolClient = {
    query: ((sql: string) => {
      asked.push(sql);
      return 'failure' in answer
        ? Promise.reject(answer.failure)
        : Promise.resolve({ rows: answer.rows } as PostgresQueryResult<unknown>);
    }) as unknown as PostgresPoolClient['query'],
    release: () => {},
  };
  const pool: PostgresPool = { connect: async () => client, end: async () => {} };
  return { pool, asked };
}

/** Tracing that records every `ended` and says the current span is recorded when `recorded.now` is true. */
function recordingTracing(recorded: { now: boolean }) {
  const ended: Ended[] = [];
  const tracing: Tracing = {
    ...noTracing,
    enabled: true,
    ended: (name, attributes, durationMs, error) => {
      expect(durationMs).toBeGreaterThanOrEqual(0);
      ended.push({ name, attributes, failed: error !== undefined });
    },
    recording: () => recorded.now,
  };
  return { tracing, ended };
}

describe('statement spans', () => {
  it('returns the pool as it is when tracing is off', () => {
    const { pool } = fakePool({ rows: [] });
    expect(tracedPool(pool, noTracing, 'postgresql')).toBe(pool);
    expect(tracedPool(pool, undefined, 'pglite')).toBe(pool);
  });

  it('records a statement of a recorded request, named by its first keyword, its text kept', async () => {
    const { pool, asked } = fakePool({ rows: [{ id: 1 }] });
    const { tracing, ended } = recordingTracing({ now: true });
    const client = await tracedPool(pool, tracing, 'postgresql').connect();
    const result = await client.query('/* users */ select id from users where id = $1', [1]);
    expect(result.rows).toEqual([{ id: 1 }]);
    expect(asked).toEqual(['/* users */ select id from users where id = $1']);
    expect(ended).toEqual([
      {
        name: 'db SELECT',
        attributes: {
          'db.system.name': 'postgresql',
          'db.operation.name': 'SELECT',
          'db.query.text': '/* users */ select id from users where id = $1',
        },
        failed: false,
      },
    ]);
  });

  it('marks a failed statement and passes its error on', async () => {
    const failure = new Error('duplicate key');
    const { pool } = fakePool({ failure });
    const { tracing, ended } = recordingTracing({ now: true });
    const client = await tracedPool(pool, tracing, 'pglite').connect();
    await expect(client.query('insert into users default values', [])).rejects.toBe(failure);
    expect(ended.map(({ name, failed }) => ({ name, failed }))).toEqual([
      { name: 'db INSERT', failed: true },
    ]);
  });

  it('records nothing of a request the sampler left out, and still runs its statements', async () => {
    const recorded = { now: false };
    const { pool, asked } = fakePool({ rows: [{ id: 2 }] });
    const { tracing, ended } = recordingTracing(recorded);
    const client = await tracedPool(pool, tracing, 'postgresql').connect();
    expect((await client.query('select 2', [])).rows).toEqual([{ id: 2 }]);
    expect(asked).toEqual(['select 2']);
    expect(ended).toEqual([]);
    // The same client in a recorded request records again: the choice is made per statement.
    recorded.now = true;
    await client.query('update users set name = $1', ['x']);
    expect(ended.map(({ name }) => name)).toEqual(['db UPDATE']);
  });

  it('hands out one wrapper per pooled client', async () => {
    const { pool } = fakePool({ rows: [] });
    const traced = tracedPool(pool, recordingTracing({ now: true }).tracing, 'postgresql');
    expect(await traced.connect()).toBe(await traced.connect());
  });
});
