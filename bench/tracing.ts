import { randomBytes } from 'node:crypto';
import { alternated, alternationLine, withProcess } from './alternation.js';
import type { BenchDatabase } from './database.js';
import { runLoad, warmUp } from './load.js';
import { startOtlpSink } from './otlp-sink.js';
import type { Row } from './report.js';
import { type Service, startService } from './service.js';
import type { Settings } from './settings.js';
import { registerTokenUser } from './tokens.js';

/**
 * `--scenarios=tokens`, its last part: user/get with tracing on beside off (target: at most 10 % dearer).
 * Two services on the same rows (PGlite: a copy taken once the user is registered), one exporting every span
 * over OTLP/HTTP to a collector on 127.0.0.1 that takes and drops them, and a third sampling one request in
 * ten (OTEL_TRACES_SAMPLER); their windows alternate (off first and last), each side the median of
 * BENCH_ROUNDS windows, as the hot paths' limits are measured.
 */
export async function benchTracing(database: BenchDatabase, settings: Settings): Promise<Row[]> {
  const secrets = { SECRETS_KEY: randomBytes(32).toString('hex') };
  const token = await withProcess(
    () => startService({ ...database.env, ...secrets }),
    (service) => registerTokenUser(service.url),
  );
  const beside = await database.besideService();
  const besideSampled = await database.besideService();
  const sink = await startOtlpSink();
  const traced = { ...secrets, OTEL_EXPORTER_OTLP_ENDPOINT: sink.url };
  // The SDK's own sampler variables: one request in ten recorded, and every request a caller sampled.
  const sampled = { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' };
  try {
    return await withProcess(
      () => startService({ ...database.env, ...secrets }),
      (off) =>
        withProcess(
          () => startService({ ...beside, ...traced }),
          (on) =>
            withProcess(
              () => startService({ ...besideSampled, ...traced, ...sampled }),
              (tenth) => compare(off, [on, tenth], `Bearer ${token}`, settings, sink.exports),
            ),
        ),
    );
  } finally {
    await sink.close();
  }
}

async function compare(
  off: Service,
  [on, tenth]: [Service, Service],
  authorization: string,
  settings: Settings,
  exports: () => { requests: number; bytes: number },
): Promise<Row[]> {
  const options = (service: Service) => ({
    url: service.url,
    path: '/v1/user/get',
    method: 'GET' as const,
    headers: { authorization },
    connections: settings.connections,
    seconds: settings.seconds,
    serverPid: service.pid,
  });
  for (const service of [off, on, tenth]) await warmUp(options(service), settings.warmupSeconds);
  const before = exports();
  const { limit, services } = await alternated(
    () => runLoad(options(off)),
    [() => runLoad(options(on)), () => runLoad(options(tenth))],
    settings.rounds,
  );
  const [traced = limit, sampled = limit] = services;
  const exported = exports();
  console.log(alternationLine('user/get, tracing on ÷ off', limit, traced, settings.seconds));
  console.log(alternationLine('user/get, one in ten traced ÷ off', limit, sampled, settings.seconds));
  console.log(
    `tracing on: ${exported.requests - before.requests} OTLP exports, ` +
      `${((exported.bytes - before.bytes) / 1024 ** 2).toFixed(1)} MiB, during the measured windows`,
  );
  if (exported.requests === before.requests) throw new Error('the traced service exported no span');
  return [
    { scenario: 'user/get, tracing off', result: limit },
    {
      scenario: 'user/get, tracing on (OTLP/HTTP to 127.0.0.1)',
      result: traced,
      baseline: { scenario: 'user/get, tracing off', result: limit, metric: 'req/s' },
    },
    {
      scenario: 'user/get, tracing on, one request in ten sampled',
      result: sampled,
      baseline: { scenario: 'user/get, tracing off', result: limit, metric: 'req/s' },
    },
  ];
}
