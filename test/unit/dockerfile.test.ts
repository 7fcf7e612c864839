import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { ROOT } from '../helpers/process.js';

/**
 * No container engine runs here, so the Dockerfile is checked by reading it: its stages, the production-only
 * install, the user, ports and command. Its HEALTHCHECK command runs for real against a live server.
 */

const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const lines = dockerfile
    .replace(/\\\n\s*/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
  const stages = lines.reduce<string[][]>((all, line) => {
    if (line.startsWith('FROM ')) all.push([]);
    all.at(-1)?.push(line);
    return all;
  }, []);
  const runtime = stages.at(-1) ?? [];

  it('builds in one stage and runs from a slim image of the current Node LTS (26) in another', () => {
    expect(lines).toContain('ARG NODE_IMAGE=node:26-bookworm-slim');
    expect(stages.map((stage) => stage[0])).toEqual([
      `FROM \${NODE_IMAGE} AS build`,
      `FROM \${NODE_IMAGE} AS runtime`,
    ]);
    expect(stages[0]).toContain('RUN npm run build');
    expect(runtime).toContain('COPY --from=build /app/dist ./dist');
  });

  it('installs production dependencies only, without scripts that need devDependencies', () => {
    const install = runtime.find((line) => line.startsWith('RUN npm ci'));
    expect(install).toMatch(/^RUN npm ci --omit=dev --ignore-scripts /);
    // --ignore-scripts is safe only while no production dependency but sharp (whose script only checks
    // for its prebuilt npm-packaged binary) has an install script that matters: @scarf/scarf's (under
    // swagger-ui-dist) only reports the install to scarf.sh, and package.json opts out of it anyway.
    const lock = JSON.parse(read('package-lock.json')) as {
      packages: Record<string, { dev?: boolean; hasInstallScript?: boolean }>;
    };
    const scripted = Object.entries(lock.packages)
      .filter(([, entry]) => entry.hasInstallScript && !entry.dev)
      .map(([name]) => name);
    expect(scripted).toEqual(['node_modules/@scarf/scarf', 'node_modules/sharp']);
  });

  it('runs as a non-root user, exposes its ports, checks its health with node, and serves', () => {
    const user = runtime.filter((line) => line.startsWith('USER '));
    expect(user).toEqual(['USER node']);
    expect(runtime).toContain('EXPOSE 8080 9464');
    const healthcheck = runtime.find((line) => line.startsWith('HEALTHCHECK '));
    expect(healthcheck).toMatch(/CMD \["node", "-e", ".*\/healthz/);
    expect(runtime.at(-1)).toBe('CMD ["node", "dist/main.js", "serve"]');
    expect(runtime).toContain('COPY src/db/migrations ./src/db/migrations');
    // Every file the built service reads from src/ at run time is in the image.
    expect(runtime).toContain(
      'COPY src/modules/images/render-worker.mjs ./src/modules/images/render-worker.mjs',
    );
    expect(runtime).toContain('COPY src/lib/hashing-worker.cjs ./src/lib/hashing-worker.cjs');
    expect(runtime).toContain('COPY src/lib/lower-priority.cjs ./src/lib/lower-priority.cjs');
    expect(runtime).toContain('COPY src/db/pglite-worker.mjs ./src/db/pglite-worker.mjs');
    expect(runtime).toContain('COPY src/db/pglite-settings.mjs ./src/db/pglite-settings.mjs');
    expect(runtime).toContain('COPY src/db/pglite-initdb.mjs ./src/db/pglite-initdb.mjs');
    // The web pages' stylesheet is read from web/static (their modules are in dist/public).
    expect(runtime).toContain('COPY web/static ./web/static');
  });

  it('copies only files that exist and that .dockerignore lets through', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    const copied = lines
      .filter((line) => line.startsWith('COPY ') && !line.startsWith('COPY --from'))
      .flatMap((line) => line.split(/\s+/).slice(1, -1));
    expect(copied.length).toBeGreaterThan(3);
    for (const source of copied) {
      expect(existsSync(path.join(ROOT, source))).toBe(true);
      expect(ignored.some((pattern) => source === pattern || source.startsWith(`${pattern}/`))).toBe(false);
    }
  });
});

describe('the HEALTHCHECK command', () => {
  let ctx: TestApp;
  let port: number;

  beforeAll(async () => {
    ctx = await createTestApp('pglite');
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    port = (ctx.app.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
  });

  const script = () => {
    const healthcheck = read('Dockerfile')
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .find((line) => line.startsWith('HEALTHCHECK '));
    const json = /CMD (\[.*\])$/.exec(healthcheck ?? '')?.[1] ?? '[]';
    return (JSON.parse(json) as string[])[2] ?? '';
  };

  it('succeeds against a live service on PORT and fails where nothing listens', async () => {
    const run = (env: Record<string, string>) =>
      promisify(execFile)(process.execPath, ['-e', script()], {
        env: { PATH: process.env.PATH ?? '', ...env },
      }).then(
        () => 0,
        (error: { code?: number }) => error.code ?? -1,
      );
    expect(await run({ PORT: String(port) })).toBe(0);
    expect(await run({ PORT: '1' })).toBe(1);
  });
});
