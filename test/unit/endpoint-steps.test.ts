import type { FastifyRequest } from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import {
  GuardianConsentRequiredError,
  IdempotencyKeyReusedError,
  ProviderNotConfiguredError,
  UnauthenticatedError,
  ValidationError,
} from '../../src/errors.js';
import type { AuthContext } from '../../src/http/auth-context.js';
import {
  authenticatorFor,
  availability,
  countUploads,
  explainFailure,
  guardianGate,
  noteWrite,
  type RequestServices,
  uploadedFiles,
} from '../../src/http/endpoint-steps.js';
import { type RateCounter, unlimited } from '../../src/limits/rate-counter.js';
import { string } from '../../src/validation/field-kinds.js';
import { rules } from '../../src/validation/rule-list.js';

const signedIn = (guardianConsent: 'pending' | 'given' | null = null): AuthContext =>
  ({
    user: { id: 'user-1', guardian_consent: guardianConsent },
    tokenId: 'token-1',
  }) as unknown as AuthContext;

const request = (headers: Record<string, string> = {}) =>
  ({ headers, query: {}, body: undefined }) as unknown as FastifyRequest;

function services(owner?: AuthContext): RequestServices & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    authenticate: async (token) => {
      asked.push(token);
      return token === 'good' ? owner : undefined;
    },
  };
}

function counter(): RateCounter & { keys: string[] } {
  const keys: string[] = [];
  return { ...unlimited, keys, consume: async (key: string) => void keys.push(key) };
}

const file = { kind: 'uploaded-file' };

describe('1. authenticate', () => {
  const alice = signedIn();

  it('requires a token that proves someone in required mode', async () => {
    const look = services(alice);
    await expect(authenticatorFor('required')(request({ authorization: 'Bearer good' }), look)).resolves.toBe(
      alice,
    );
    await expect(authenticatorFor('required')(request(), look)).rejects.toBeInstanceOf(UnauthenticatedError);
    await expect(
      authenticatorFor('required')(request({ authorization: 'Bearer bad' }), look),
    ).rejects.toBeInstanceOf(UnauthenticatedError);
  });

  it('serves nobody in optional mode only when no credential is presented', async () => {
    const look = services(alice);
    await expect(authenticatorFor('optional')(request(), look)).resolves.toBeUndefined();
    expect(look.asked).toEqual([]);
    await expect(
      authenticatorFor('optional')(request({ authorization: 'Bearer bad' }), look),
    ).rejects.toBeInstanceOf(UnauthenticatedError);
    await expect(authenticatorFor('optional')(request({ authorization: 'Bearer good' }), look)).resolves.toBe(
      alice,
    );
  });

  it('never asks in mode none', async () => {
    const look = services(alice);
    await expect(
      authenticatorFor('none')(request({ authorization: 'Bearer good' }), look),
    ).resolves.toBeUndefined();
    expect(look.asked).toEqual([]);
  });
});

describe('2. the guardian gate', () => {
  it('refuses a child waiting for consent on a restricted endpoint only', () => {
    expect(() => guardianGate(true, signedIn('pending'))).toThrow(GuardianConsentRequiredError);
    expect(() => guardianGate(false, signedIn('pending'))).not.toThrow();
    expect(() => guardianGate(true, signedIn('given'))).not.toThrow();
    expect(() => guardianGate(true, signedIn())).not.toThrow();
    expect(() => guardianGate(true, undefined)).not.toThrow();
  });
});

describe('3. availability', () => {
  it('throws the error an unavailable endpoint makes, and nothing otherwise', () => {
    const unconfigured = new ProviderNotConfiguredError('gamma', {});
    expect(() => availability(() => unconfigured)).toThrow(unconfigured);
    expect(() => availability(undefined)).not.toThrow();
  });
});

describe('4. upload counting', () => {
  it('counts files at the top level and one level down, and nothing else', () => {
    expect(uploadedFiles({ picture: file, name: 'kim', images: [file, file, 'x'], map: { a: file } })).toBe(
      4,
    );
    expect(uploadedFiles({ deep: { list: [file] } })).toBe(0);
    expect(uploadedFiles(undefined)).toBe(0);
    expect(uploadedFiles('picture')).toBe(0);
  });

  it('consumes one unit per file on the user key', async () => {
    const limit = counter();
    await countUploads(limit, signedIn(), { picture: file, images: [file] });
    expect(limit.keys).toEqual(['user:user-1', 'user:user-1']);
  });

  it('gives nothing to wait for without a limit, with limits off, or without a user', () => {
    const limit = counter();
    expect(countUploads(undefined, signedIn(), { picture: file })).toBeUndefined();
    expect(countUploads(unlimited, signedIn(), { picture: file })).toBeUndefined();
    expect(countUploads(limit, undefined, { picture: file })).toBeUndefined();
    expect(limit.keys).toEqual([]);
  });
});

describe('noteWrite', () => {
  it('marks the writer once the work is over, whether it succeeded or failed', async () => {
    const wrote = vi.fn();
    const look = { ...services(), wrote };
    await expect(noteWrite(look, 'user-1', async () => 'done')).resolves.toBe('done');
    await expect(
      noteWrite(look, 'user-1', async () => {
        throw new Error('failed after commit');
      }),
    ).rejects.toThrow('failed after commit');
    expect(wrote.mock.calls).toEqual([['user-1'], ['user-1']]);
  });
});

describe('7. explaining', () => {
  const taken = vi.fn(async (value: string) => value === 'kim');
  const list = rules({
    username: string().unique(async (value) => taken(value), { name: 'users,username', leftToWrite: true }),
    email: string(),
  });

  it('hands on anything but a validation refusal, and a reused Idempotency-Key, as it is', async () => {
    const fault = new Error('boom');
    await expect(explainFailure(fault, list, {}, {}, {})).resolves.toBe(fault);
    const reused = new IdempotencyKeyReusedError();
    await expect(explainFailure(reused, list, { username: 'kim' }, {}, {})).resolves.toBe(reused);
  });

  it('answers a refused write as validation would have, naming every field the write left to check', async () => {
    const refusal = ValidationError.taken('email');
    const explained = await explainFailure(refusal, list, { username: 'kim', email: 'a@b.c' }, {}, {});
    expect(explained).toBeInstanceOf(ValidationError);
    expect(Object.keys((explained as ValidationError).failures).sort()).toEqual(['email', 'username']);
  });
});
