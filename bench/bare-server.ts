import { createHash, randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { PGlite, parse, protocol } from '@electric-sql/pglite';
import { hash, verify } from '@node-rs/argon2';
import Fastify from 'fastify';
import pg from 'pg';
import { SERVICE_ARGON2 } from './argon2-limit.js';

/**
 * The limit the validate and user/get scenarios are compared with: a bare Fastify route (no logging, no
 * hooks, no validation) doing the service's indexed `lower(email)` SELECT on the same database — the same
 * PostgreSQL server through a pool of the service's size, or the same PGlite files in this one process.
 * Run as its own process (`node dist-bench/bare-server.js`), like the service, so the load generator does
 * not share its event loop. Env: PORT, and DATABASE_URL or PGLITE_DIR; BARE_PREPARED=1 runs every statement
 * as a named (prepared) one, as the service runs its hot queries on both databases: that is the judged limit,
 * since a bare route that re-plans each SELECT would be a lower bar than the service's own path.
 * BARE_PREPARED=0 runs them unnamed (printed for information beside the judged limit).
 *
 * Also, for information, the least an HTTP login or sign-up can cost on this machine: `POST
 * /v1/auth/login/email` reads the account, verifies the password with raw `@node-rs/argon2` on libuv's
 * threadpool (the bench sets UV_THREADPOOL_SIZE to the hashes in flight) and writes a token; `POST
 * /v1/auth/register` hashes and writes the account and its token in one statement. No validation, no
 * verification mail, no logging: what any service must at least do besides the hash.
 */
const EMAIL_TAKEN_SQL = 'SELECT 1 FROM users WHERE lower(email) = lower($1) LIMIT 1';
const ACCOUNT_SQL = 'SELECT id, password_hash FROM users WHERE lower(email) = lower($1) LIMIT 1';
const TOKEN_SQL = 'INSERT INTO api_tokens (id, user_id, token_hash, name) VALUES ($1, $2, $3, $4)';
const SIGN_UP_SQL = `WITH account AS (
  INSERT INTO users (id, email, username, slug, gender, password_hash) VALUES ($1, $2, $3, $3, $4, $5) RETURNING id
) INSERT INTO api_tokens (id, user_id, token_hash, name) SELECT $6, id, $7, $8 FROM account`;

/** A new API token and the digest that is stored (as the service does). */
function newToken(): { token: string; digest: Buffer } {
  const token = randomBytes(32).toString('base64url');
  return { token, digest: createHash('sha256').update(token).digest() };
}

type Query = (text: string, values: unknown[]) => Promise<{ rows: unknown[] }>;

async function openDatabase(): Promise<{ query: Query; close(): Promise<void> }> {
  const url = process.env.DATABASE_URL;
  if (url) {
    // Idle connections are kept (pg closes them after 10 s by default): in the alternated windows the bare
    // route waits 10 s between its own, and reconnecting at the start of a window would weaken the limit.
    const pool = new pg.Pool({ connectionString: url, max: 10, idleTimeoutMillis: 0 });
    const prepared = process.env.BARE_PREPARED === '1';
    // One name per SQL: pg refuses a name reused for other text (the login route runs two statements).
    return {
      query: (text, values) =>
        pool.query(prepared ? { name: statementName(text), text, values } : { text, values }),
      close: () => pool.end(),
    };
  }
  const dir = process.env.PGLITE_DIR;
  if (!dir) throw new Error('bare-server needs DATABASE_URL or PGLITE_DIR');
  const pglite = await PGlite.create(path.resolve(dir));
  const prepared = process.env.BARE_PREPARED === '1';
  return {
    query: (text, values) => (prepared ? namedQuery(pglite, text, values) : pglite.query(text, values)),
    close: () => pglite.close(),
  };
}

/** Each statement's name, by its SQL (on PGlite: the statements prepared on its one connection). */
const preparedNames = new Map<string, string>();

function statementName(text: string): string {
  let name = preparedNames.get(text);
  if (name === undefined) {
    name = `bare_${preparedNames.size + 1}`;
    preparedNames.set(text, name);
  }
  return name;
}

/** The PGlite statements already parsed, by name. */
const parsedNames = new Set<string>();

/**
 * PGlite has no named statements in its API; its wire protocol has (as the service's src/db/pglite-worker.mjs
 * uses it): prepared on the first call, then bind, describe, execute and sync in one batch. Values go as text
 * (the bare routes bind strings, and a missing user agent as NULL).
 */
async function namedQuery(pglite: PGlite, text: string, values: unknown[]): Promise<{ rows: unknown[] }> {
  const { serialize } = protocol;
  const batch = (messages: Uint8Array[]) => Buffer.concat(messages);
  const name = statementName(text);
  if (!parsedNames.has(name)) {
    await pglite.execProtocolStream(batch([serialize.parse({ name, text }), serialize.sync()]));
    parsedNames.add(name);
  }
  const messages = await pglite.execProtocolStream(
    batch([
      serialize.bind({
        statement: name,
        values: values.map((value) => (value == null ? null : String(value))),
      }),
      serialize.describe({ type: 'P' }),
      serialize.execute({}),
      serialize.sync(),
    ]),
  );
  return parse.parseResults(messages, pglite.parsers)[0] ?? { rows: [] };
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
  app.post('/v1/auth/login/email', async (request, reply) => {
    const form = (request.body ?? {}) as Record<string, string>;
    const { rows } = await database.query(ACCOUNT_SQL, [form.email ?? '']);
    const account = rows[0] as { id: string; password_hash: string | null } | undefined;
    const matches = account?.password_hash ? await verify(account.password_hash, form.password ?? '') : false;
    if (!account || !matches) return reply.code(401).send({ meta: { code: 401 }, data: null });
    const { token, digest } = newToken();
    await database.query(TOKEN_SQL, [
      randomUUID(),
      account.id,
      digest,
      request.headers['user-agent'] ?? null,
    ]);
    return { meta: { code: 200 }, data: { user: { id: account.id, api_token: token } } };
  });
  app.post('/v1/auth/register', async (request) => {
    const form = (request.body ?? {}) as Record<string, string>;
    const passwordHash = await hash(form.password ?? '', SERVICE_ARGON2);
    const id = randomUUID();
    const { token, digest } = newToken();
    const values = [
      id,
      form.email,
      form.username,
      Number(form.gender),
      passwordHash,
      randomUUID(),
      digest,
      null,
    ];
    await database.query(SIGN_UP_SQL, values);
    return { meta: { code: 200 }, data: { user: { id, api_token: token } } };
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
