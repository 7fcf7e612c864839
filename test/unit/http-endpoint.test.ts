import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Column } from '../../src/db/users-indexes.js';
import { CommitFailedError, TooManyRequestsError, ValidationError } from '../../src/errors.js';
import {
  type AnyEndpoint,
  type AuthContext,
  endpoint,
  type RequestServices,
} from '../../src/http/endpoint.js';
import { ok } from '../../src/http/envelope.js';
import { sendError } from '../../src/http/errors.js';
import { t } from '../../src/http/response-schema.js';
import { string } from '../../src/validation/field-kinds.js';
import { rules } from '../../src/validation/rule-list.js';
import { expectError, expectValidationError, UNAUTHENTICATED } from '../helpers/http.js';
import { logSink } from '../helpers/logs.js';

const at = new Date('2026-01-01T00:00:00Z');
const alice: AuthContext = {
  user: {
    id: 'user-alice',
    email: 'alice@example.com',
    username: 'alice',
    username_skeleton: 'alice',
    slug: 'alice',
    gender: 0,
    bio: null,
    password_hash: null,
    profile_picture: null,
    is_inspirer: false,
    created_at: at,
    updated_at: at,
    disabled_at: null,
    email_verified: true,
    deletion_scheduled_at: null,
    deletion_due_at: null,
    birth_date: null,
    identity_verified_at: null,
    guardian_consent: null,
    guardian_pending_since: null,
    agreed_consents: {},
    phone: null,
    phone_verified: false,
  },
  tokenId: 'token-1',
};

/** Request services with one valid token, and a uniqueness lookup for the rules that records what it was asked. */
function services(): RequestServices & { taken: ReturnType<typeof vi.fn> } {
  const taken = vi.fn(async (_column: Column, _value: string, _except?: string) => false);
  return {
    taken,
    authenticate: async (token) => (token === 'good-token' ? alice : undefined),
  };
}

let app: FastifyInstance | undefined;

afterEach(async () => {
  await app?.close();
  app = undefined;
});

/** A bare Fastify app serving one endpoint the way app.ts does, logging into `sink`. */
async function serve(definition: AnyEndpoint, requestServices: RequestServices, sink = logSink()) {
  app = Fastify({ logger: { level: 'info', stream: sink.stream } });
  app.setErrorHandler((error, request, reply) => sendError(error, request, reply));
  app.route({
    method: definition.method,
    url: `/v1${definition.path}`,
    handler: async (request) => ok(await definition.run(request, requestServices)),
  });
  await app.ready();
  return app;
}

describe('runEndpoint', () => {
  const echo = (auth: 'required' | 'optional' | 'none', look = services()) =>
    endpoint({
      method: 'GET',
      path: '/echo',
      summary: 'echo',
      tag: 'test',
      auth,
      rules: rules({
        name: string().unique((value, except) => look.taken('username', value, except), {
          name: 'users,username',
          ignoreCurrentUser: true,
        }),
      }),
      response: t.object({
        params: t.object({}),
        user: t.nullable(t.object({ id: t.string() })),
      }),
      example: { params: {}, user: null },
      handle: async ({ params, auth: session }) => ({
        params,
        user: session ? { id: session.user.id } : null,
      }),
    });

  it('hands a required-auth handler the signed-in user and ignores the others’ values', async () => {
    const server = await serve(echo('required'), services());
    const res = await server.inject({
      method: 'GET',
      url: '/v1/echo?name=kim',
      headers: { authorization: 'Bearer good-token' },
    });
    expect(res.json()).toEqual({
      meta: { code: 200 },
      data: { params: { name: 'kim' }, user: { id: 'user-alice' } },
    });
  });

  it('refuses a required-auth request with a bad token before validating anything', async () => {
    const look = services();
    const server = await serve(echo('required', look), look);
    const res = await server.inject({
      method: 'GET',
      url: '/v1/echo?name=kim',
      headers: { authorization: 'Bearer bad' },
    });
    expectError(res, 401, ...UNAUTHENTICATED);
    expect(look.taken).not.toHaveBeenCalled();
  });

  it('serves an optional-auth request without a user only when no credential is presented', async () => {
    const server = await serve(echo('optional'), services());
    for (const headers of [{}, { authorization: '' }]) {
      const res = await server.inject({ method: 'GET', url: '/v1/echo', headers });
      expect(res.json()).toEqual({ meta: { code: 200 }, data: { params: {}, user: null } });
    }
    for (const authorization of ['Bearer bad', 'Basic Z29vZC10b2tlbg==', 'Bearer']) {
      const res = await server.inject({ method: 'GET', url: '/v1/echo', headers: { authorization } });
      expectError(res, 401, ...UNAUTHENTICATED);
    }
    const signedIn = await server.inject({
      method: 'GET',
      url: '/v1/echo',
      headers: { authorization: 'Bearer good-token' },
    });
    expect(signedIn.json().data.user).toEqual({ id: 'user-alice' });
  });

  it('never looks at a token for an auth-none endpoint', async () => {
    const look = services();
    const authenticate = vi.spyOn(look, 'authenticate');
    const server = await serve(echo('none', look), look);
    const res = await server.inject({ method: 'GET', url: '/v1/echo?api_token=good-token' });
    expect(res.json().data.user).toBeNull();
    expect(authenticate).not.toHaveBeenCalled();
  });

  it('tells uniqueness rules who is signed in, so a user keeps their own value', async () => {
    const look = services();
    const server = await serve(echo('required', look), look);
    await server.inject({ method: 'GET', url: '/v1/echo?name=kim&api_token=good-token' });
    expect(look.taken).toHaveBeenCalledWith('username', 'kim', 'user-alice');
  });
});

describe('sendError', () => {
  function failing(error: unknown) {
    return endpoint({
      method: 'POST',
      path: '/fail',
      summary: 'fail',
      tag: 'test',
      auth: 'none',
      rules: rules({}),
      response: t.object({}),
      example: {},
      handle: async () => {
        throw error;
      },
    });
  }

  it('adds Retry-After to a 429', async () => {
    const server = await serve(failing(new TooManyRequestsError(17)), services());
    const res = await server.inject({ method: 'POST', url: '/v1/fail' });
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toBe('17');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.json()).toEqual({
      meta: { code: 429, error_type: 'TooManyRequestsHttpException', error_message: 'Too Many Attempts.' },
      data: { retry_after: 17 },
    });
  });

  it('logs a 5xx with its cause for operators and shows the client only the envelope', async () => {
    const { stream, lines } = logSink();
    const cause = new Error('deadlock detected on relation users');
    const server = await serve(failing(new CommitFailedError(cause)), services(), { stream, lines });
    const res = await server.inject({ method: 'POST', url: '/v1/fail' });
    expect(res.json()).toEqual({
      meta: { code: 500, error_type: 'InternalServerError', error_message: 'Failed to commit transaction.' },
      data: [],
    });
    expect(res.body).not.toContain('deadlock');
    const logged = lines.map((line) => JSON.parse(line)).find((entry) => entry.msg === 'request failed');
    expect(logged?.level).toBe(50);
    expect(logged?.err.message).toContain('deadlock detected');
  });

  it('does not log a 422 as an error', async () => {
    const { stream, lines } = logSink();
    const server = await serve(failing(ValidationError.taken('email')), services(), { stream, lines });
    expectValidationError(await server.inject({ method: 'POST', url: '/v1/fail' }), {
      email: ['The email has already been taken.'],
    });
    expect(lines.map((line) => JSON.parse(line).level)).not.toContain(50);
  });
});
