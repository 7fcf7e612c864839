import { describe, expect, it } from 'vitest';
import { renderFailure } from '../../src/validation/messages.js';
import { useTestApp } from '../helpers/app.js';
import { backends } from '../helpers/database.js';
import { bearer, registerUser, registrationForm, unique } from '../helpers/factories.js';
import { expectValidationError, postForm } from '../helpers/http.js';

const KOREAN = { 'accept-language': 'ko-KR,ko;q=0.9,en;q=0.8' };

/** Every parameter name /openapi.json declares, in any operation's query or body. */
function declaredFields(document: {
  paths: Record<
    string,
    Record<string, { parameters?: { name: string; in: string }[]; requestBody?: unknown }>
  >;
}): Set<string> {
  const names = new Set<string>();
  for (const operations of Object.values(document.paths)) {
    for (const operation of Object.values(operations)) {
      for (const parameter of operation.parameters ?? []) {
        if (parameter.in !== 'path') names.add(parameter.name.replace(/\[\]$/, ''));
      }
      const content = (
        operation.requestBody as { content?: Record<string, { schema?: { properties?: object } }> }
      )?.content;
      for (const media of Object.values(content ?? {})) {
        for (const name of Object.keys(media.schema?.properties ?? {})) names.add(name);
      }
    }
  }
  return names;
}

describe.each(backends)('%s: Korean field messages (Accept-Language: ko)', (backend) => {
  const ctx = useTestApp(backend);

  it('names a taken profile address as the pages do, with the particle it takes', async () => {
    const held = await registerUser(ctx.app, { slug: `Held-${unique()}` });
    expectValidationError(await postForm(ctx.app, '/v1/validate/slug', { slug: held.slug }, KOREAN), {
      slug: ['프로필 주소는 이미 사용 중입니다.'],
    });
  });

  it('writes a common password and a missing field as a person would', async () => {
    const res = await postForm(
      ctx.app,
      '/v1/auth/register',
      registrationForm({ password: 'password', user_agreement: undefined }),
      KOREAN,
    );
    expectValidationError(res, {
      user_agreement: ['이용약관 필드는 필수입니다.'],
      password: ['비밀번호는 너무 흔한 비밀번호입니다.'],
    });
  });

  it('says the current password is wrong with 가', async () => {
    const user = await registerUser(ctx.app);
    const res = await postForm(
      ctx.app,
      '/v1/user/update',
      { email: `new${unique()}@example.com`, current_password: 'not-the-password' },
      { ...bearer(user.token), ...KOREAN },
    );
    expectValidationError(res, { current_password: ['현재 비밀번호가 올바르지 않습니다.'] });
  });

  it('has a Korean name for every field the API declares', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/openapi.json' });
    const fields = declaredFields(res.json());
    expect(fields.size).toBeGreaterThan(20);
    for (const field of fields) {
      // A field without a Korean name falls back to its own, spaces for underscores.
      expect(renderFailure(field, { rule: 'regex' }, 'ko'), field).not.toBe(
        `${field.replaceAll('_', ' ')} 형식이 유효하지 않습니다.`,
      );
    }
  });
});
