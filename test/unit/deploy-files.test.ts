import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config.js';
import { ROOT } from '../helpers/process.js';

/**
 * No container engine runs here, so the deployment files are checked by reading them: the compose file's
 * services, images, ports, start order and environment (fed to the real config parser) and nginx's upstreams.
 * The Dockerfile has its own test file (dockerfile.test.ts).
 */

interface Service {
  image?: string;
  build?: string;
  command?: string[];
  entrypoint?: string[];
  ports?: string[];
  expose?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  networks?: { default?: { ipv4_address?: string } };
}

const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const compose = parse(read('compose.yaml')) as {
  services: Record<string, Service>;
  networks: { default: { ipam: { config: Array<{ subnet: string }> } } };
};
const services = compose.services;
const APPS = ['accounts-1', 'accounts-2'];

/** The value compose would use for `${NAME:-default}` with nothing set in the environment. */
function interpolateDefaults(value: string): string {
  return value.replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1');
}

function service(name: string): Service {
  const found = services[name];
  if (!found) throw new Error(`compose.yaml has no service ${name}`);
  return found;
}

function appEnv(name: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(service(name).environment ?? {}).map(([key, value]) => [
      key,
      interpolateDefaults(String(value)),
    ]),
  );
}

describe('compose.yaml', () => {
  it('has PostgreSQL, Redis, MinIO with its bucket job, a migrate job, two instances and a load balancer', () => {
    expect(Object.keys(services).sort()).toEqual(
      ['accounts-1', 'accounts-2', 'migrate', 'minio', 'minio-bucket', 'postgres', 'proxy', 'redis'].sort(),
    );
    expect(service('postgres').image).toMatch(/^postgres:\d+/);
    expect(service('redis').image).toMatch(/^redis:\d+/);
    expect(service('minio').image).toMatch(/^minio\/minio:/);
    expect(service('minio-bucket').image).toMatch(/^minio\/mc:/);
    expect(service('proxy').image).toMatch(/^nginx:/);
    for (const name of [...APPS, 'migrate']) {
      expect(service(name).build).toBe('.');
      expect(service(name).image).toBe('accounts:local');
    }
    expect(service('migrate').command).toEqual(['node', 'dist/main.js', 'migrate']);
  });

  it('publishes only the load balancer; the instances and their metrics stay inside', () => {
    const published = Object.entries(services).filter(([, s]) => (s.ports ?? []).length > 0);
    expect(published.map(([name]) => name)).toEqual(['proxy']);
    expect(service('proxy').ports).toEqual(['8080:8080']);
    for (const name of APPS) expect(service(name).expose).toEqual(['8080', '9464']);
  });

  it('starts things in order: migrations and the bucket first, then instances, then the proxy', () => {
    for (const name of APPS) {
      expect(service(name).depends_on).toEqual({
        migrate: { condition: 'service_completed_successfully' },
        redis: { condition: 'service_healthy' },
        'minio-bucket': { condition: 'service_completed_successfully' },
      });
      const [kind, node, flag, script] = service(name).healthcheck?.test ?? [];
      expect([kind, node, flag]).toEqual(['CMD', 'node', '-e']);
      expect(script).toContain("fetch('http://127.0.0.1:8080/readyz')");
      // A script YAML mangled (a plain scalar with ": " becomes a mapping) would not even parse.
      expect(() => new Function(String(script))).not.toThrow();
    }
    expect(service('migrate').depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(service('minio-bucket').depends_on).toEqual({ minio: { condition: 'service_healthy' } });
    expect(service('proxy').depends_on).toEqual({
      'accounts-1': { condition: 'service_healthy' },
      'accounts-2': { condition: 'service_healthy' },
    });
    for (const name of ['postgres', 'redis', 'minio'])
      expect(service(name).healthcheck?.test.length).toBeGreaterThan(1);
  });

  it('gives the instances a configuration the service accepts: PostgreSQL, Redis, S3, no migration, the proxy trusted', () => {
    const env = appEnv('accounts-1');
    expect(appEnv('accounts-2')).toEqual(env);
    expect(appEnv('migrate')).toEqual(env);
    const config = loadConfig(env);
    const postgres = service('postgres').environment ?? {};
    const database = new URL(config.databaseUrl as string);
    expect(database.host).toBe('postgres:5432');
    expect(database.username).toBe(postgres.POSTGRES_USER);
    expect(database.password).toBe(interpolateDefaults(String(postgres.POSTGRES_PASSWORD)));
    expect(database.pathname).toBe(`/${postgres.POSTGRES_DB}`);
    expect(config.redisUrl).toBe('redis://redis:6379');
    expect(config.migrateOnStart).toBe(false);
    expect(config.host).toBe('0.0.0.0');
    expect(config.port).toBe(8080);
    expect(config.metrics.port).toBe(9464);
    expect(config.metrics.token).toBeDefined();

    const proxyAddress = service('proxy').networks?.default?.ipv4_address;
    expect(config.trustProxy).toEqual([proxyAddress]);
    const subnet = compose.networks.default.ipam.config[0]?.subnet ?? '';
    expect(proxyAddress?.startsWith(subnet.replace(/0\/24$/, ''))).toBe(true);

    expect(config.media).toMatchObject({
      driver: 's3',
      endpoint: 'http://minio:9000',
      forcePathStyle: true,
      publicBaseUrl: 'http://localhost:8080/media',
    });
    if (config.media.driver !== 's3') throw new Error('not S3');
    const minio = service('minio').environment ?? {};
    expect(config.media.credentials).toEqual({
      accessKeyId: interpolateDefaults(String(minio.MINIO_ROOT_USER)),
      secretAccessKey: interpolateDefaults(String(minio.MINIO_ROOT_PASSWORD)),
    });
    const bucketJob = (service('minio-bucket').entrypoint ?? []).join(' ');
    expect(bucketJob).toContain(`mc mb --ignore-existing local/${config.media.bucket}`);
    expect(bucketJob).toContain(`mc anonymous set download local/${config.media.bucket}`);
  });
});

describe('deploy/nginx.conf', () => {
  const nginx = read('deploy/nginx.conf');

  it('balances over both instances on their PORT and serves the bucket under /media/', () => {
    const upstreams = [...nginx.matchAll(/^\s*server (\S+):(\d+)/gm)].map((m) => `${m[1]}:${m[2]}`);
    expect(upstreams).toEqual(APPS.map((name) => `${name}:${appEnv(name).PORT}`));
    expect(nginx).toMatch(/listen 8080;/);
    expect(nginx).toContain('proxy_pass http://accounts;');
    expect(nginx).toContain(`proxy_pass http://minio:9000/${appEnv('accounts-1').S3_BUCKET}/;`);
    expect(nginx).toMatch(/location = \/metrics \{\s*return 404;/);
    expect(nginx).toContain('proxy_set_header X-Forwarded-For $remote_addr;');
    // With the port ($http_host, not $host): the web pages' cookie is honoured only when Origin equals Host.
    expect(nginx).toContain('proxy_set_header Host $http_host;');
  });
});
