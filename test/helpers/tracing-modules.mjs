// Starts the built server as configured by the environment, then prints (as JSON) the OpenTelemetry modules
// it loaded: the CommonJS ones Node keeps in require's cache (@fastify/otel and every @opentelemetry package).
import { createRequire } from 'node:module';

const { loadConfig } = await import('../../dist/config.js');
const { startServer } = await import('../../dist/server.js');
const server = await startServer(loadConfig(process.env));
const loaded = Object.keys(createRequire(import.meta.url).cache).filter((file) =>
  /@opentelemetry|@fastify[\\/]otel/.test(file),
);
await server.close();
process.stdout.write(JSON.stringify(loaded));
