import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import Fastify from 'fastify';
import pg from 'pg';

/**
 * The limit the validate and user/get scenarios are compared with: a bare Fastify route (no logging, no
 * hooks, no validation) doing the service's indexed `lower(email)` SELECT on the same database — the same
 * PostgreSQL server through a pool of the service's size, or the same PGlite files in this one process.
 * Run as its own process (`node dist-bench/bare-server.js`), like the service, so the load generator does
 * not share its event loop. Env: PORT, and DATABASE_URL or PGLITE_DIR; BARE_PREPARED=1 runs the SELECT as a
 * named (prepared) statement, as the service runs its hot queries on a PostgreSQL server (printed for
 * information beside the judged limit, which issue 9 defines as the plain route).
 */
const EMAIL_TAKEN_SQL = 'SELECT 1 FROM users WHERE lower(email) = lower($1) LIMIT 1';

type Query = (text: string, values: unknown[]) => Promise<{ rows: unknown[] }>;

async function openDatabase(): Promise<{ query: Query; close(): Promise<void> }> {
  const url = process.env.DATABASE_URL;
  if (url) {
    const pool = new pg.Pool({ connectionString: url, max: 10 });
    const prepared = process.env.BARE_PREPARED === '1';
    return {
      query: (text, values) => pool.query(prepared ? { name: 'taken', text, values } : { text, values }),
      close: () => pool.end(),
    };
  }
  const dir = process.env.PGLITE_DIR;
  if (!dir) throw new Error('bare-server needs DATABASE_URL or PGLITE_DIR');
  const pglite = await PGlite.create(path.resolve(dir));
  return { query: (text, values) => pglite.query(text, values), close: () => pglite.close() };
}

const TAKEN = JSON.stringify({
  meta: { code: 422, message: 'The email has already been taken.', errors: { email: ['taken'] } },
  data: null,
});

async function main(): Promise<void> {
  const database = await openDatabase();
  const app = Fastify();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
  app.get('/healthz', async () => ({ meta: { code: 200 }, data: null }));
  app.post('/v1/validate/email', async (request, reply) => {
    const email = String((request.body as Record<string, string> | undefined)?.email ?? '');
    const { rows } = await database.query(EMAIL_TAKEN_SQL, [email]);
    if (rows.length > 0) return reply.code(422).type('application/json').send(TAKEN);
    return { meta: { code: 200 }, data: { email, status: 'valid' } };
  });
  const close = async () => {
    await app.close();
    await database.close();
    process.exit(0);
  };
  process.once('SIGTERM', close);
  process.once('SIGINT', close);
  await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
