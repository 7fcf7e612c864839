import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { ok, successEnvelopeSchema } from '../../src/http/envelope.js';
import { type Static, t } from '../../src/http/response-schema.js';
import { userShape } from '../../src/modules/users/view.js';
import { schemaMismatches } from '../helpers/response-check.js';

const account = t.object({
  id: t.string(),
  bio: t.nullable(t.string()),
  picture: t.nullable(t.object({ url: t.string(), thumbnails: t.record(t.string()) })),
});

describe('response shapes', () => {
  it('serializes only the declared properties: a column returned by accident never reaches a client', async () => {
    const app = Fastify();
    const leaky = {
      id: 'u1',
      bio: null,
      picture: { url: '/m/a.jpg', thumbnails: { '64': '/m/a_64.jpg' }, keys: ['a'] },
    };
    app.get('/me', { schema: { response: { 200: successEnvelopeSchema(account.schema) } } }, async () =>
      ok({ ...leaky, password_hash: '$argon2id$secret' }),
    );
    const res = await app.inject({ method: 'GET', url: '/me' });
    await app.close();
    expect(res.json()).toEqual({
      meta: { code: 200 },
      data: { id: 'u1', bio: null, picture: { url: '/m/a.jpg', thumbnails: { '64': '/m/a_64.jpg' } } },
    });
    expect(res.body).not.toContain('argon2id');
  });

  it('serializes a nullable object or array as null or as its shape', async () => {
    const app = Fastify();
    const shape = t.object({ picture: account.properties.picture, tags: t.nullable(t.array(t.string())) });
    expect(shape.properties.picture.schema).toMatchObject({ type: ['object', 'null'] });
    const answers = [
      { picture: null, tags: null },
      { picture: { url: '/m/b.jpg', thumbnails: {} }, tags: ['a', 'b'] },
    ];
    app.get(
      '/n/:i',
      { schema: { response: { 200: successEnvelopeSchema(shape.schema) } } },
      async (request) => ok(answers[Number((request.params as { i: string }).i)]),
    );
    for (const [i, data] of answers.entries()) {
      const res = await app.inject({ method: 'GET', url: `/n/${i}` });
      expect(res.json()).toEqual({ meta: { code: 200 }, data });
    }
    await app.close();
  });

  it('declares every property required, nulls where nullable, and nothing undeclared (checked strictly)', () => {
    const good: Static<typeof account> = { id: 'u1', bio: null, picture: null };
    expect(schemaMismatches(account.schema, good)).toEqual([]);
    expect(schemaMismatches(account.schema, { id: 'u1', bio: null })).not.toEqual([]);
    expect(schemaMismatches(account.schema, { ...good, id: null })).not.toEqual([]);
    expect(schemaMismatches(account.schema, { ...good, password_hash: 'x' })).not.toEqual([]);
  });

  it('extends and narrows an object shape (the signed-in user, the public view)', () => {
    const withToken = t.extend(account, { api_token: t.string() });
    expect(withToken.schema.required).toEqual(['id', 'bio', 'picture', 'api_token']);
    const publicView = t.omit(userShape, ['email', 'providers', 'has_password', 'email_verified']);
    expect(Object.keys(publicView.properties)).not.toContain('email');
    expect(publicView.schema.required).toEqual(Object.keys(publicView.properties));
  });

  it('writes literals and enums as JSON Schema constants', () => {
    expect(t.literal('valid').schema).toEqual({ type: 'string', const: 'valid' });
    expect(t.literal(true).schema).toEqual({ type: 'boolean', const: true });
    expect(t.enum(['sent', 'skipped']).schema).toEqual({ type: 'string', enum: ['sent', 'skipped'] });
    expect(t.nullable(t.dateTime()).schema).toEqual({ type: ['string', 'null'], format: 'date-time' });
  });
});
