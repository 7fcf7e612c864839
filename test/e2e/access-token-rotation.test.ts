import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InProcessCommands, inProcessCommands } from '../helpers/commands.js';
import { TEST_SECRETS_KEY } from '../helpers/config.js';
import { backends } from '../helpers/database.js';
import { registrationForm } from '../helpers/factories.js';
import { type RunningService, startService } from '../helpers/process.js';
import { type ProcessStore, processStore } from '../helpers/process-store.js';

interface KeyView {
  kid: string;
  state: string;
  retire_after: string | null;
}

const post = async (url: string, body: Record<string, string>, headers: Record<string, string> = {}) => {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(body).toString(),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
};

// Two servers on one PostgreSQL database: the keys are the database's, so both sign with one.
describe.each(backends.filter((backend) => backend === 'postgres'))(
  '%s: two instances signing through a rotation',
  (backend) => {
    let store: ProcessStore;
    let commands: InProcessCommands;
    const services: RunningService[] = [];

    beforeAll(async () => {
      store = await processStore(
        backend,
        {
          ARGON2_MEMORY_KIB: '1024',
          ARGON2_TIME_COST: '1',
          SECRETS_KEY: TEST_SECRETS_KEY,
          // A short publish-ahead, so the rotation's switch comes within the test.
          ACCESS_KEY_PUBLISH_AHEAD: '2s',
          ACCESS_TOKEN_TTL: '5m',
        },
        { migrated: true },
      );
      services.push(...(await Promise.all([startService(store.env), startService(store.env)])));
      commands = inProcessCommands(store.env);
    });
    afterAll(async () => {
      await commands?.close();
      await Promise.all(services.map((service) => service.stop()));
      await store?.cleanup();
    });

    const accessToken = async (service: RunningService, apiToken: string) => {
      const res = await post(`${service.url}/v1/auth/token`, {}, { authorization: `Bearer ${apiToken}` });
      expect(res.status).toBe(200);
      return (res.json.data as { access_token: string }).access_token;
    };
    const kidOf = (token: string) => decodeProtectedHeader(token).kid;
    const listKeys = async () => {
      const result = await commands.run(['keys', 'list', '--json']);
      expect(result.code).toBe(0);
      return JSON.parse(result.stdout) as KeyView[];
    };

    it('makes one first key, switches both at once after the publish-ahead, and verifies older tokens', async () => {
      const [a, b] = services as [RunningService, RunningService];
      const form = registrationForm();
      const registered = await post(`${a.url}/v1/auth/register`, form);
      const apiToken = (registered.json.data as { user: { api_token: string } }).user.api_token;

      // Both instances asked at once for the first token: one key between them.
      const [fromA, fromB] = await Promise.all([accessToken(a, apiToken), accessToken(b, apiToken)]);
      expect(kidOf(fromA)).toBe(kidOf(fromB));
      expect((await listKeys()).map((key) => [key.kid, key.state])).toEqual([[kidOf(fromA), 'signing']]);

      const rotated = await commands.run(['keys', 'rotate', '--json']);
      expect(rotated.code).toBe(0);
      const next = JSON.parse(rotated.stdout) as KeyView;
      expect(next.state).toBe('pending');

      // Wait (bounded) for the new key to sign; then the other instance signs with it too.
      let latest = await accessToken(a, apiToken);
      for (let tries = 0; kidOf(latest) !== next.kid && tries < 100; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        latest = await accessToken(a, apiToken);
      }
      expect(kidOf(latest)).toBe(next.kid);
      expect(kidOf(await accessToken(b, apiToken))).toBe(next.kid);

      // A token signed before the rotation still verifies against either instance's JWKS.
      const jwks = (await (await fetch(`${b.url}/.well-known/jwks.json`)).json()) as { keys: KeyView[] };
      expect(jwks.keys.map((key) => key.kid)).toEqual([kidOf(fromA), next.kid]);
      const { payload } = await jwtVerify(fromA, createLocalJWKSet(jwks as never), { typ: 'at+jwt' });
      expect(payload.sub).toBe((registered.json.data as { user: { id: string } }).user.id);
      const states = (await listKeys()).map((key) => [key.kid, key.state, key.retire_after !== null]);
      expect(states).toEqual([
        [kidOf(fromA), 'published', true],
        [next.kid, 'signing', false],
      ]);

      // A service introspects both kinds of token on the other instance.
      const added = await commands.run(['service', 'add', 'feed', '--json']);
      const { client_id, client_secret } = JSON.parse(added.stdout) as Record<string, string>;
      const basic = `Basic ${Buffer.from(`${client_id}:${client_secret}`).toString('base64')}`;
      for (const token of [apiToken, fromA]) {
        const answer = await post(`${b.url}/oauth/introspect`, { token }, { authorization: basic });
        expect([answer.status, answer.json.active, answer.json.sub]).toEqual([200, true, payload.sub]);
      }
    });
  },
);
