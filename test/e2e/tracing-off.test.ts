import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/process.js';
import { type ProcessStore, processStore } from '../helpers/process-store.js';

/**
 * Tracing off costs nothing because nothing of it is there (docs/tracing.md): the built server, started as
 * configured, loads no OpenTelemetry module without OTEL_EXPORTER_OTLP_ENDPOINT.
 */

/** Starts the built server in a process of its own and prints which OpenTelemetry modules it loaded. */
async function loadedTracingModules(env: Record<string, string>): Promise<string[]> {
  const child = spawn(process.execPath, [`${ROOT}test/helpers/tracing-modules.mjs`], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'silent', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  // 'close', not 'exit': the output is whole only once the pipes have closed.
  const [code] = (await once(child, 'close')) as [number | null];
  expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
  return JSON.parse(stdout) as string[];
}

describe('tracing off', () => {
  let store: ProcessStore;
  beforeAll(async () => {
    store = await processStore('pglite');
  });
  afterAll(async () => {
    await store?.cleanup();
  });

  it('loads no OpenTelemetry module without OTEL_EXPORTER_OTLP_ENDPOINT (and does with it)', async () => {
    // prom-client (/metrics) loads the API package itself, for its exemplars, with or without tracing: a
    // facade of no-ops. Nothing else of OpenTelemetry: no SDK, no exporter, no @fastify/otel.
    const ours = (files: string[]) => files.filter((file) => !/@opentelemetry[\\/]api[\\/]/.test(file));
    expect(ours(await loadedTracingModules(store.env))).toEqual([]);
    // The same check sees them when tracing is on (the collector need not answer: nothing is exported yet).
    const on = ours(
      await loadedTracingModules({ ...store.env, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' }),
    );
    expect(on.some((file) => /@opentelemetry[\\/]sdk-trace-base/.test(file))).toBe(true);
    expect(on.some((file) => /@fastify[\\/]otel/.test(file))).toBe(true);
    // Two servers start and stop one after the other, each on its own embedded database.
  }, 120_000);
});
