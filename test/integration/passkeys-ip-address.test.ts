import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser } from '../helpers/factories.js';
import { expectError, expectOk, postForm, postJson } from '../helpers/http.js';
import { logSink } from '../helpers/logs.js';

const UNAVAILABLE = [
  409,
  'ConflictHttpException',
  'Passkeys need a domain name.',
  { status: 'passkeys_unavailable', rp_id: '127.0.0.1' },
] as const;

/**
 * PUBLIC_URL at an IP address makes the relying-party ID one, which every browser refuses: the service says
 * so once at start, and each passkey ceremony answers why instead of handing out options no browser takes.
 */
describe.each(backends)('%s: passkeys when PUBLIC_URL is an IP address', (backend) => {
  let ctx: TestApp;
  let lines: string[];

  beforeAll(async () => {
    const sink = logSink();
    lines = sink.lines;
    ctx = await createTestApp(
      backend,
      { PUBLIC_URL: 'http://127.0.0.1:8080', LOG_LEVEL: 'warn' },
      { logStream: sink.stream },
    );
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
  });

  it('warns once, in one line, when the app starts', () => {
    const warnings = lines
      .map((line) => JSON.parse(line) as { msg: string })
      .filter((line) => /passkey/.test(line.msg));
    expect(warnings.map((line) => line.msg)).toEqual([
      "passkeys are off: PUBLIC_URL's host 127.0.0.1 is an IP address, and browsers make passkeys only for a " +
        'domain name; set PUBLIC_URL to one (http://localhost:PORT on this machine)',
    ]);
  });

  it('answers every ceremony with a 409 saying passkeys need a domain name', async () => {
    const user = await registerUser(ctx.app);
    const signedIn = bearer(user.token);
    expectError(await postForm(ctx.app, '/v1/auth/login/passkey/options', {}), ...UNAVAILABLE);
    expectError(
      await postJson(ctx.app, '/v1/auth/login/passkey', { challenge_id: 'x', response: {} }),
      ...UNAVAILABLE,
    );
    expectError(
      await postForm(ctx.app, '/v1/user/passkeys/options', { current_password: user.password }, signedIn),
      ...UNAVAILABLE,
    );
    expectError(await postJson(ctx.app, '/v1/user/passkeys/add', { response: {} }, signedIn), ...UNAVAILABLE);
    expectError(await postForm(ctx.app, '/dev/user/passkeys/reauth-options', {}, signedIn), ...UNAVAILABLE);
    // What needs no ceremony still answers: the (empty) list.
    expect(
      expectOk(await ctx.app.inject({ method: 'GET', url: '/v1/user/passkeys', headers: signedIn })),
    ).toEqual({ passkeys: [] });
  });

  it('documents the 409 on the ceremonies', async () => {
    const document = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const operation = Object.entries(document.paths).find(([path]) =>
      path.endsWith('/auth/login/passkey/options'),
    );
    expect(Object.keys(operation?.[1].post?.responses ?? {})).toContain('409');
  });
});
