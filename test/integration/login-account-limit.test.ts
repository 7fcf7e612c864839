import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeTestApp, createTestApp, type TestApp } from '../helpers/app.js';
import { expectTooManyRequests } from '../helpers/client-requests.js';
import { backends } from '../helpers/database.js';
import { registerUser } from '../helpers/factories.js';
import { expectOk } from '../helpers/http.js';
import { expectAuthenticationFailed } from '../helpers/providers.js';
import { deleteKeys, limitsEnv, newKeyPrefix, type Store, stores } from '../helpers/redis.js';

let lastIp = 0;
/** A fresh address per call: the guesses of a botnet, each from somewhere else. */
function newIp(): string {
  lastIp += 1;
  return `10.77.${(lastIp >> 8) & 255}.${lastIp & 255}`;
}

function login(app: FastifyInstance, body: Record<string, string>, ip: string, headers = {}) {
  return app.inject({
    method: 'POST',
    url: '/v1/auth/login/email',
    remoteAddress: ip,
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(body).toString(),
  });
}

const cases = stores.flatMap((store) => backends.map((backend) => [store, backend] as const));

/**
 * Failed logins per account across every address: guesses spread over many IPs stop at the account's limit,
 * while the owner can still sign in from a device that signed in to the account before.
 */
describe.each(cases)('failed logins per account on the %s store (%s)', (store: Store, backend) => {
  let ctx: TestApp;
  const keyPrefix = newKeyPrefix();

  beforeAll(async () => {
    ctx = await createTestApp(
      backend,
      limitsEnv(
        store,
        {
          RATE_LIMIT_LOGIN_FAILURES: '3/15m',
          RATE_LIMIT_LOGIN_ACCOUNT: '5/1h',
          RATE_LIMIT_LOGIN_IP: '1000/15m',
        },
        keyPrefix,
      ),
    );
  });
  afterAll(async () => {
    if (ctx) await closeTestApp(ctx);
    await deleteKeys(keyPrefix);
  });

  it('caps guesses from many addresses, lets a known device in, and leaves other accounts alone', async () => {
    const victim = await registerUser(ctx.app);
    const neighbour = await registerUser(ctx.app);
    const guess = { email: victim.email, password: 'Wrong-Guess-1234' };
    // One guess from each of five addresses: every per-(email, IP) counter stays at one.
    for (let i = 0; i < 5; i++) expectAuthenticationFailed(await login(ctx.app, guess, newIp()));
    expectTooManyRequests(await login(ctx.app, guess, newIp()), 60 * 60);
    // Over the limit even the right password is refused from an unknown device, before any hashing.
    expectTooManyRequests(
      await login(ctx.app, { email: victim.email, password: victim.password }, newIp()),
      60 * 60,
    );
    // The owner's phone presents the token it got at sign-up: it signs in.
    const known = await login(ctx.app, { email: victim.email, password: victim.password }, newIp(), {
      authorization: `Bearer ${victim.token}`,
    });
    expectOk(known);
    // A token of another account proves nothing about this one.
    const foreign = await login(ctx.app, { email: victim.email, password: victim.password }, newIp(), {
      authorization: `Bearer ${neighbour.token}`,
    });
    expectTooManyRequests(foreign, 60 * 60);
    expectOk(await login(ctx.app, { email: neighbour.email, password: neighbour.password }, newIp()));
  });

  it('still holds a known device to the per-(email, IP) limit', async () => {
    const victim = await registerUser(ctx.app);
    const ip = newIp();
    const headers = { authorization: `Bearer ${victim.token}` };
    for (let i = 0; i < 3; i++) {
      expectAuthenticationFailed(
        await login(ctx.app, { email: victim.email, password: 'Wrong-1234' }, ip, headers),
      );
    }
    expect(
      (await login(ctx.app, { email: victim.email, password: victim.password }, ip, headers)).statusCode,
    ).toBe(429);
  });
});
