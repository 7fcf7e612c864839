import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { expectOk, postForm } from './http.js';

let counter = 0;

/** A unique suffix per call, so tests never collide on email, username or slug. */
export function unique(): string {
  counter += 1;
  return `${counter}${randomBytes(3).toString('hex')}`;
}

export interface RegisteredUser {
  id: string;
  email: string;
  username: string;
  slug: string;
  password: string;
  token: string;
  user: Record<string, unknown>;
}

/** Registers a user by email through the HTTP interface and returns who they are and their token. */
export async function registerUser(
  app: FastifyInstance,
  overrides: Partial<RegistrationFields & { slug: string; birth_date: string }> = {},
  version = 'v1',
): Promise<RegisteredUser> {
  const fields = { ...registrationForm(), ...overrides };
  const data = expectOk<{ user: Record<string, unknown> & { id: string; api_token: string; slug: string } }>(
    await postForm(app, `/${version}/auth/register`, fields),
  );
  return {
    id: data.user.id,
    email: fields.email,
    username: fields.username,
    slug: data.user.slug,
    password: fields.password,
    token: data.user.api_token,
    user: data.user,
  };
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** A type alias, not an interface, so that it fits the `Body` index signature of the post helpers. */
export type RegistrationFields = {
  type: string;
  email: string;
  username: string;
  gender: string;
  user_agreement: string;
  password: string;
};

/** The fields of a complete, valid email registration with fresh identifiers; `undefined` leaves one out. */
export function registrationForm<O extends Record<string, string | undefined> = Record<never, never>>(
  overrides: O = {} as O,
): Omit<RegistrationFields, keyof O> & O {
  const id = unique();
  return {
    type: 'email',
    email: `reg${id}@example.com`,
    username: `reg${id}`,
    gender: '0',
    user_agreement: 'on',
    password: `Quiet-Harbour-${id}`,
    ...overrides,
  };
}
