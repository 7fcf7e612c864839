import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { signUpEndpoints } from '../../src/account/sign-up/routes.js';
import { openApiDocument } from '../../src/http/openapi.js';
import { userEndpoints } from '../../src/modules/users/routes.js';

// The README's answers of register and user/get are written by hand; the OpenAPI document's examples are
// typed against the response schemas. Same keys in both, so a field added to the user shows up in the README.

const never = async () => {
  throw new Error('not called: the document is built, no request runs');
};
const endpoints = [
  ...signUpEndpoints(
    { register: never } as never,
    {
      types: ['email'],
      providerNames: [],
      image: { maxBytes: 1, maxPixels: 1 },
      taken: { email: never, username: never, slug: never },
      birthDateRequired: false,
    },
    {} as never,
  ),
  ...userEndpoints({} as never, never),
];
const paths = openApiDocument(endpoints, ['v1'], '0.0.0').paths as Record<string, Record<string, unknown>>;

type Answer = { data: { user: Record<string, unknown> } };

function openApiUser(path: string, method: 'get' | 'post'): Record<string, unknown> {
  const operation = paths[path]?.[method] as {
    responses: Record<string, { content: Record<string, { example: Answer }> }>;
  };
  const example = operation.responses['200']?.content['application/json']?.example;
  if (!example) throw new Error(`${method} ${path} has no example`);
  return example.data.user;
}

/** The README's JSON answers that carry a `user`, in the order they appear. */
function readmeUsers(): Record<string, unknown>[] {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  return [...readme.matchAll(/```json\n([\s\S]*?)\n```/g)]
    .map((block) => JSON.parse(block[1] ?? '') as Partial<Answer>)
    .flatMap((answer) => (answer.data?.user ? [answer.data.user] : []));
}

describe("the README's examples", () => {
  const [registered, signedIn, ...others] = readmeUsers();

  it('show the register answer and the user/get answer, in that order', () => {
    expect(registered).toHaveProperty('api_token');
    expect(signedIn).toBeDefined();
    expect(signedIn).not.toHaveProperty('api_token');
    expect(others).toEqual([]);
  });

  it("give register's user the keys of its OpenAPI example, in its order", () => {
    expect(Object.keys(registered ?? {})).toEqual(Object.keys(openApiUser('/auth/register', 'post')));
  });

  it("give user/get's user the keys of its OpenAPI example, in its order", () => {
    expect(Object.keys(signedIn ?? {})).toEqual(Object.keys(openApiUser('/user/get', 'get')));
  });
});
