// @ts-check
/**
 * The embedded database's thread (started by pglite-thread.ts). Plain JavaScript, read from src/ in tests and
 * in the built service alike (like hashing-worker.cjs), because a Node 20 worker cannot run TypeScript.
 *
 * Why a thread: PGlite is PostgreSQL compiled to WebAssembly and runs wherever it is called. On the event
 * loop's thread every statement stalls every other request for as long as it runs, and its large working
 * set evicts the request path's caches between two requests. Here it runs beside the event loop, on the
 * other core, and answers statements strictly in the order they come (the API process's PGlitePool sends
 * single statements without waiting for earlier answers, and holds the connection for a transaction).
 */
import { readFile } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite, parse, protocol } from '@electric-sql/pglite';
import { PGLITE_START_PARAMS } from './pglite-settings.mjs';

const port = parentPort;
if (!port) throw new Error('pglite-worker.mjs runs as a worker thread');

/**
 * An error as the API process's classifier reads it (db/errors.ts: SQLSTATE `code`, `constraint`, the
 * message): a worker's Error would reach the other thread without its own fields.
 * @param {unknown} error
 */
function describe(error) {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  /** @type {Record<string, unknown>} */
  const fields = { name: error.name, message: error.message };
  for (const [key, value] of Object.entries(error)) {
    if (typeof value === 'string' || typeof value === 'number') fields[key] = value;
  }
  return fields;
}

/**
 * An in-memory database starts as a copy of the template (a migrated data directory, pglite-template.ts)
 * instead of running initdb; a data directory on disk has been given its files before this thread starts
 * (pglite-files.ts), so no template comes with it.
 * @param {string | undefined} template
 */
async function templateFor(template) {
  return template === undefined ? {} : { loadDataDir: new Blob([await readFile(template)]) };
}

/** PostgreSQL's `date` type. */
const DATE_OID = 1082;

/** @type {PGlite} */
let pglite;
try {
  pglite = await PGlite.create(workerData.dir, {
    startParams: PGLITE_START_PARAMS,
    // A `date` is a calendar day, not an instant: its text as is, as node-postgres is told (db/client.ts).
    parsers: { [DATE_OID]: (value) => value },
    ...(await templateFor(workerData.template)),
  });
} catch (error) {
  port.postMessage({ id: 0, ok: false, error: describe(error) });
  process.exit(1);
}
port.postMessage({ id: 0, ok: true });

/**
 * "cached plan must not change result type": a named `SELECT users.*` after a migration added a column.
 */
const RESULT_TYPE_CHANGED = '0A000';

/**
 * The statements prepared on this connection: by the name the API process gave the SQL, the name it is
 * prepared under (a new one after a schema change) and its parameters' types.
 * @type {Map<string, { prepared: string, types: number[] }>}
 */
const statements = new Map();
let preparations = 0;

/**
 * Prepares `sql` under a fresh name; resolves to the statement and its parameters' types.
 * @param {string} name
 * @param {string} sql
 */
async function prepare(name, sql) {
  const prepared = `${name}_${++preparations}`;
  const { serialize } = protocol;
  const described = await pglite.execProtocolStream(
    Buffer.concat([
      serialize.parse({ name: prepared, text: sql }),
      serialize.describe({ type: 'S', name: prepared }),
      serialize.sync(),
    ]),
  );
  const parameters = described.find((message) => message.name === 'parameterDescription');
  const types = /** @type {{ dataTypeIDs?: number[] } | undefined} */ (parameters)?.dataTypeIDs ?? [];
  const statement = { prepared, types };
  statements.set(name, statement);
  return statement;
}

/**
 * Runs a registered hot query as a named statement (db/prepared-statements.ts): PGlite's `query` parses,
 * analyses and plans the SQL on every call, in six calls into WebAssembly; a named statement is planned
 * once, and each call after that is one batch (bind, describe, execute, sync). For the uniqueness check of
 * validate that is a third of the CPU a plain query costs. Values and rows are converted as `query` does,
 * with the same type serializers and parsers; it holds PGlite's query lock, as `query` does.
 * @param {string} name
 * @param {string} sql
 * @param {unknown[]} params
 * @param {boolean} [again] the retry after a schema change
 * @returns {Promise<{ rows: unknown[], affectedRows?: number, command?: string }>}
 */
async function queryNamed(name, sql, params, again = false) {
  try {
    return await pglite.runExclusive(async () => {
      const statement = statements.get(name) ?? (await prepare(name, sql));
      const values = params.map((value, i) => {
        if (value === null || value === undefined) return null;
        const serializer = pglite.serializers[statement.types[i] ?? 0];
        return serializer ? serializer(value) : String(value);
      });
      const { serialize } = protocol;
      const messages = await pglite.execProtocolStream(
        Buffer.concat([
          serialize.bind({ statement: statement.prepared, values }),
          serialize.describe({ type: 'P' }),
          serialize.execute({}),
          serialize.sync(),
        ]),
      );
      const [result] = parse.parseResults(messages, pglite.parsers);
      return {
        rows: result?.rows ?? [],
        affectedRows: result?.affectedRows,
        command: /** @type {{ command?: string } | undefined} */ (result)?.command,
      };
    });
  } catch (error) {
    if (again || /** @type {{ code?: unknown }} */ (error)?.code !== RESULT_TYPE_CHANGED) throw error;
    // A migration changed what the statement returns: prepare it again under a new name, once.
    statements.delete(name);
    return queryNamed(name, sql, params, true);
  }
}

/**
 * @typedef {{ id: number, op: 'query', sql: string, params: unknown[], name?: string }} QueryMessage
 * @typedef {{ id: number, op: 'exec', sql: string }} ExecMessage
 * @typedef {{ id: number, op: 'close' }} CloseMessage
 * @typedef {{ id: number, op: 'dump' }} DumpMessage
 * @typedef {{ id: number, op: 'listen', channel: string }} ListenMessage
 * @typedef {QueryMessage | ExecMessage | CloseMessage | DumpMessage | ListenMessage} Message
 */

/** @param {Message} message */
async function run(message) {
  if (message.op === 'query' && message.name !== undefined) {
    return queryNamed(message.name, message.sql, message.params);
  }
  if (message.op === 'query') {
    const result = await pglite.query(message.sql, message.params);
    return {
      rows: result.rows,
      affectedRows: result.affectedRows,
      command: /** @type {{ command?: string }} */ (result).command,
    };
  }
  if (message.op === 'exec') {
    await pglite.exec(message.sql);
    return undefined;
  }
  if (message.op === 'listen') {
    // A NOTIFY on the channel, by any statement, reaches the API process before the answer of the statement
    // that committed it (PGlite calls back while it reads that answer): one without an `id` to reply to.
    const { channel } = message;
    await pglite.listen(channel, () => port.postMessage({ notify: channel }));
    return undefined;
  }
  if (message.op === 'dump') {
    // Written to the files first, so the copy starts without replaying the write-ahead log.
    await pglite.exec('CHECKPOINT');
    return new Uint8Array(await (await pglite.dumpDataDir('gzip')).arrayBuffer());
  }
  await pglite.close();
  return undefined;
}

/**
 * Strictly in the order they came, each after the last has answered: the API process pipelines single
 * statements (pglite-pool.ts), and a transaction's BEGIN must run after every statement sent before it.
 */
let last = Promise.resolve();
port.on('message', (/** @type {Message} */ message) => {
  const fail = (/** @type {unknown} */ error) =>
    port.postMessage({ id: message.id, ok: false, error: describe(error) });
  // The chain never breaks: a reply that cannot be sent (a value that cannot cross threads) answers as an error.
  last = last.then(() =>
    run(message)
      .then((result) => port.postMessage({ id: message.id, ok: true, result }), fail)
      .catch(fail),
  );
});
