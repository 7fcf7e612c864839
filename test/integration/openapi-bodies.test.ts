import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';

import { fetchOpenApi, refs } from '../helpers/openapi.js';

describe.each(backends)('%s: GET /openapi.json, parameters and bodies', (backend) => {
  const ctx = useTestApp(backend, { API_VERSIONS: 'v1,dev' });
  const document = () => fetchOpenApi(ctx.app);

  it("lists each parameter's 422 messages exactly as a real 422 renders them, in English and Korean", async () => {
    const doc = await document();
    const schema = doc.paths['/auth/register']?.post?.requestBody?.content['multipart/form-data']?.schema as {
      properties: Record<string, { description?: string; 'x-messages'?: { en: string[]; ko: string[] } }>;
    };
    const bad = {
      type: 'email',
      email: 'not-an-address',
      username: 'x'.repeat(300),
      gender: '7',
      slug: 'ab',
    };
    for (const locale of ['en', 'ko'] as const) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/v1/auth/register',
        headers: { 'accept-language': locale },
        payload: bad,
      });
      expect(res.statusCode).toBe(422);
      const failing = res.json().data as Record<string, string[]>;
      // Every failing field, the missing ones included (user_agreement, password: required / required_if).
      expect(Object.keys(failing).sort()).toEqual(
        ['email', 'gender', 'password', 'slug', 'user_agreement', 'username'].sort(),
      );
      for (const [field, messages] of Object.entries(failing)) {
        for (const message of messages)
          expect(schema.properties[field]?.['x-messages']?.[locale]).toContain(message);
      }
    }
    expect(schema.properties.email?.description).toContain('“The email must be a valid email address.”');
    expect(schema.properties.email?.['x-messages']?.ko).toContain('이메일은 이미 사용 중입니다.');
    const unprocessable = doc.paths['/auth/register']?.post?.responses['422'] as
      | { content: Record<string, { example: { meta: unknown; data: Record<string, string[]> } }> }
      | undefined;
    const example = unprocessable?.content['application/json']?.example;
    expect(example?.meta).toEqual({
      code: 422,
      error_type: 'ValidationException',
      error_message: 'Unprocessable Entity',
    });
    expect(example?.data.email).toEqual(['The email field is required.']);
  });

  it('offers multipart alone where a file is required (a form or JSON body could never succeed)', async () => {
    const body = (await document()).paths['/user/profile-image/update']?.post?.requestBody;
    expect(Object.keys(body?.content ?? {})).toEqual(['multipart/form-data']);
  });

  it('documents each 200 with its data schema and a real example, never a bare object', async () => {
    const doc = await document();
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const status = operation.responses['202'] ? 202 : 200;
        const ok = operation.responses[String(status)] as {
          content: {
            'application/json': {
              schema: { properties: { data: Record<string, unknown> } };
              example: unknown;
            };
          };
        };
        const json = ok.content['application/json'];
        expect(json.schema.properties.data.type, `${method} ${path}`).toBe('object');
        expect(json.schema.properties.data.properties, `${method} ${path}`).toBeDefined();
        expect(json.example, `${method} ${path}`).toMatchObject({ meta: { code: status } });
      }
    }
  });

  it("passes Redocly's recommended rules with no error or warning (WEB's /docs page renders it)", async () => {
    const doc = await document();
    const config = await createConfig({
      extends: ['recommended'],
      // promotions/banners takes no parameter and needs no token: it has no 4xx to declare, truthfully.
      // package.json is UNLICENSED: there is no licence to name.
      rules: { 'operation-4xx-response': 'off', 'info-license': 'off', 'info-license-strict': 'off' },
    });
    const problems = await lintFromString({
      source: JSON.stringify(doc),
      absoluteRef: '/openapi.json',
      config,
    });
    expect(
      problems.map(
        (problem) =>
          `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`,
      ),
    ).toEqual([]);
  });

  it('offers form, JSON and multipart for bodies without files', async () => {
    const body = (await document()).paths['/validate/email']?.post?.requestBody;
    expect(Object.keys(body?.content ?? {}).sort()).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
    ]);
  });

  it('has no dangling $ref', async () => {
    const doc = await document();
    for (const ref of refs(doc)) {
      const [, section, name] = /^#\/components\/([^/]+)\/([^/]+)$/.exec(ref) ?? [];
      expect(doc.components[section as string]?.[name as string], ref).toBeDefined();
    }
  });
});

describe('DOCS_ENABLED=false', () => {
  const ctx = useTestApp('pglite', { DOCS_ENABLED: 'false' });

  it('answers the 404 envelope for /openapi.json, /docs and its assets, and links no page to them', async () => {
    for (const url of ['/openapi.json', '/docs', '/docs/assets/swagger-ui.css']) {
      const res = await ctx.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json(), url).toEqual({
        meta: { code: 404, error_type: 'NotFoundHttpException', error_message: 'Not Found' },
        data: [],
      });
    }
    const home = await ctx.app.inject({ method: 'GET', url: '/' });
    expect(home.statusCode).toBe(200);
    expect(home.body).not.toContain('href="/docs"');
    expect((await ctx.app.inject({ method: 'GET', url: '/v1/promotions/banners' })).statusCode).toBe(200);
  });
});
