// @ts-check
/**
 * The embedded database's thread (started by pglite-thread.ts). Plain JavaScript, read from src/ in tests and
 * in the built service alike (like hashing-worker.mjs), because a Node 20 worker cannot run TypeScript.
 *
 * Why a thread: PGlite is PostgreSQL compiled to WebAssembly and runs wherever it is called. On the event
 * loop's thread every statement stalls every other request for as long as it runs, and its large working
 * set evicts the request path's caches between two requests. Here it runs beside the event loop, on the
 * other core, and answers statements in the order they come (the API process's PGlitePool already hands the
 * one connection to one caller at a time, transactions included).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

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

/** @type {PGlite} */
let pglite;
try {
  pglite = await PGlite.create(workerData.dir);
} catch (error) {
  port.postMessage({ id: 0, ok: false, error: describe(error) });
  process.exit(1);
}
port.postMessage({ id: 0, ok: true });

/**
 * @typedef {{ id: number, op: 'query', sql: string, params: unknown[] }} QueryMessage
 * @typedef {{ id: number, op: 'exec', sql: string }} ExecMessage
 * @typedef {{ id: number, op: 'close' }} CloseMessage
 */

/** @param {QueryMessage | ExecMessage | CloseMessage} message */
async function run(message) {
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
  await pglite.close();
  return undefined;
}

port.on('message', (/** @type {QueryMessage | ExecMessage | CloseMessage} */ message) => {
  run(message).then(
    (result) => port.postMessage({ id: message.id, ok: true, result }),
    (error) => port.postMessage({ id: message.id, ok: false, error: describe(error) }),
  );
});
