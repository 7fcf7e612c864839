import { describe, expect, it, vi } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { explainRefusal, leavesChecksToWrite, validate } from '../../src/validation/engine.js';
import { boolean, integer, string, stringArray } from '../../src/validation/field-kinds.js';
import { rules } from '../../src/validation/rule-list.js';
import { CLEARED } from '../../src/validation/types.js';
import { lookups } from '../helpers/validation.js';

/** The failures of a validation that must fail. */
async function failures(list: Parameters<typeof validate>[0], bag: Record<string, unknown>) {
  const error = await validate(list, bag).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ValidationError);
  return (error as ValidationError).failures;
}

describe('validate', () => {
  it('returns only the listed fields, with their coerced values', async () => {
    const list = rules({ name: string().required(), age: integer(), ok: boolean(), note: string() });
    const params = await validate(list, { name: 'kim', age: '30', ok: 'yes', stray: 'x' });
    expect(params).toEqual({ name: 'kim', age: 30, ok: true });
  });

  it('reports every failing field together', async () => {
    const list = rules({ a: string().required(), b: integer().required(), c: string().max(2) });
    expect(await failures(list, { c: 'abc' })).toEqual({
      a: [{ rule: 'required' }],
      b: [{ rule: 'required' }],
      c: [{ rule: 'max.string', params: { max: 2 } }],
    });
  });

  it('ends a field at its first failing rule, so a malformed email never costs a uniqueness query', async () => {
    const look = lookups();
    const list = rules({
      email: string().required().max(255).email().unique(look.email, { name: 'users,email' }),
    });
    expect(await failures(list, { email: 'not-an-email' })).toEqual({ email: [{ rule: 'email' }] });
    expect(await failures(list, { email: `${'a'.repeat(250)}@b.com` })).toEqual({
      email: [{ rule: 'max.string', params: { max: 255 } }],
    });
    expect(look.taken).not.toHaveBeenCalled();
  });

  it('asks the lookups for unique and exists, case-insensitively by contract', async () => {
    const look = lookups(['email:Kim@Example.com']);
    const unique = rules({ email: string().unique(look.email, { name: 'users,email' }) });
    const exists = rules({ email: string().exists(look.email, 'users,email') });
    expect(await failures(unique, { email: 'kim@example.COM' })).toEqual({
      email: [{ rule: 'unique' }],
    });
    await expect(validate(exists, { email: 'KIM@example.com' })).resolves.toEqual({
      email: 'KIM@example.com',
    });
    expect(await failures(exists, { email: 'lee@example.com' })).toEqual({
      email: [{ rule: 'exists' }],
    });
    expect(look.taken).toHaveBeenCalledWith('email', 'kim@example.COM', undefined);
  });

  it('passes the signed-in user to unique only when the field ignores it', async () => {
    const look = lookups();
    const list = rules({
      email: string().unique(look.email, { name: 'users,email', ignoreCurrentUser: true }),
      slug: string().unique(look.slug, { name: 'users,slug' }),
    });
    await validate(list, { email: 'a@b.co', slug: 'abcd' }, { currentUserId: 'user-1' });
    expect(look.taken).toHaveBeenCalledWith('email', 'a@b.co', 'user-1');
    expect(look.taken).toHaveBeenCalledWith('slug', 'abcd', undefined);
  });

  it('checks a type before any rule: a wrong type is its own failure', async () => {
    const list = rules({ name: string().max(3), age: integer().min(1), files: stringArray() });
    expect(await failures(list, { name: ['x'], age: 'old', files: 'a' })).toEqual({
      name: [{ rule: 'string' }],
      age: [{ rule: 'integer' }],
      files: [{ rule: 'array' }],
    });
  });

  it('leaves an absent optional field out instead of failing it', async () => {
    const params = await validate(rules({ bio: string().max(3) }), {});
    expect(params).toEqual({});
  });

  describe('requiredIf', () => {
    const list = rules({
      type: string().required(),
      password: string().min(8).requiredIf('type', ['email']),
      alpha_user_id: string().requiredIf('type', ['alpha', 'beta']),
    });

    it('requires the field when the other field holds one of the values', async () => {
      expect(await failures(list, { type: 'email' })).toEqual({
        password: [{ rule: 'required_if', params: { other: 'type', value: 'email' } }],
      });
      expect(await failures(list, { type: 'beta' })).toEqual({
        alpha_user_id: [{ rule: 'required_if', params: { other: 'type', value: 'beta' } }],
      });
    });

    it('leaves it optional otherwise, and still checks it when sent', async () => {
      await expect(validate(list, { type: 'alpha', alpha_user_id: 'x' })).resolves.toEqual({
        type: 'alpha',
        alpha_user_id: 'x',
      });
      expect(await failures(list, { type: 'alpha', alpha_user_id: 'x', password: 'short' })).toEqual({
        password: [{ rule: 'min.string', params: { min: 8 } }],
      });
    });

    it('is not triggered by an other field of the wrong type', async () => {
      expect(await failures(list, { type: ['email'] })).toEqual({ type: [{ rule: 'string' }] });
    });
  });

  it('hands on what a converting rule learned as the value, to the rules after it and the result', async () => {
    const seen: number[] = [];
    const list = rules({
      name: string()
        .convert({
          name: 'measure',
          check: async (value) => ({ converted: { text: value, length: [...value].length } }),
        })
        .rule({
          name: 'short',
          check: (value) => {
            seen.push(value.length);
            return value.length > 3 ? { rule: 'max.string', params: { max: 3 } } : undefined;
          },
        }),
    });
    const params = await validate(list, { name: '가나' });
    expect(params.name).toEqual({ text: '가나', length: 2 });
    await expect(validate(list, { name: 'abcd' })).rejects.toBeInstanceOf(ValidationError);
    expect(seen).toEqual([2, 4]);
  });

  it("reports a converting rule's failure on its field and runs no rule after it", async () => {
    const after = vi.fn(() => undefined);
    const list = rules({
      name: string()
        .convert({ name: 'never', check: async () => ({ rule: 'regex' }) })
        .rule({ name: 'after', check: after }),
    });
    expect(await failures(list, { name: 'x' })).toEqual({ name: [{ rule: 'regex' }] });
    expect(after).not.toHaveBeenCalled();
  });

  it('lets a custom rule see the whole parameter bag', async () => {
    const list = rules({
      password: string().rule({
        name: 'not_username',
        check: (value, context) => (value === context.bag.username ? { rule: 'password_common' } : undefined),
      }),
    });
    expect(await failures(list, { username: 'samesame', password: 'samesame' })).toEqual({
      password: [{ rule: 'password_common' }],
    });
  });
});

describe('Field immutability', () => {
  it('never changes a shared field when a rule list derives from it', async () => {
    const shared = string().max(5);
    const strict = shared.required().min(3);
    const loose = rules({ field: shared });
    await expect(validate(loose, {})).resolves.toEqual({});
    await expect(validate(loose, { field: 'a' })).resolves.toEqual({ field: 'a' });
    expect(shared.spec.rules).toHaveLength(1);
    expect(shared.spec.presence).toEqual({ type: 'optional' });
    expect(strict.spec.rules).toHaveLength(2);
    expect(strict.spec.presence).toEqual({ type: 'required' });
  });
});

describe('fields sent empty', () => {
  const list = rules({
    bio: string().max(5).nullable(),
    note: string(),
    name: string().required().nullable(),
  });

  it('reads a cleared nullable field as null, skips a cleared plain one, and requires a cleared required one', async () => {
    const failures = await validate(list, { bio: CLEARED, note: CLEARED, name: CLEARED }).then(
      () => undefined,
      (error: ValidationError) => error.failures,
    );
    expect(failures).toEqual({ name: [{ rule: 'required' }] });
    expect(await validate(list, { bio: CLEARED, note: CLEARED, name: 'x' })).toEqual({
      bio: null,
      name: 'x',
    });
  });

  it('still applies the rules to a nullable field that has a value', async () => {
    const error = await validate(list, { bio: 'too long', name: 'x' }).catch((e) => e);
    expect((error as ValidationError).failures).toEqual({
      bio: [{ rule: 'max.string', params: { max: 5 } }],
    });
  });
});

describe('checks left to the write', () => {
  const taken = { leftToWrite: true };
  const listOf = (look: ReturnType<typeof lookups>) =>
    rules({
      email: string()
        .required()
        .email()
        .unique(look.email, { name: 'users,email', ...taken }),
      username: string()
        .required()
        .unique(look.username, { name: 'users,username', ...taken }),
      password: string().required().min(8),
    });
  const good = { email: 'kim@example.com', username: 'kim', password: 'long enough' };

  it('are skipped when every field passes: the write is the check', async () => {
    const look = lookups(['email:kim@example.com']);
    await expect(validate(listOf(look), good)).resolves.toEqual(good);
    expect(look.taken).not.toHaveBeenCalled();
    expect(leavesChecksToWrite(listOf(look))).toBe(true);
    expect(leavesChecksToWrite(rules({ email: string().unique(look.email, { name: 'users,email' }) }))).toBe(
      false,
    );
  });

  it('are made when another field fails, so the 422 names every failing field in the list order', async () => {
    const look = lookups(['email:kim@example.com', 'username:kim']);
    expect(await failures(listOf(look), { ...good, password: 'short' })).toEqual({
      email: [{ rule: 'unique' }],
      username: [{ rule: 'unique' }],
      password: [{ rule: 'min.string', params: { min: 8 } }],
    });
    expect(Object.keys(await failures(listOf(look), { ...good, password: 'short' }))).toEqual([
      'email',
      'username',
      'password',
    ]);
  });

  it('are never made for a field that failed an earlier rule', async () => {
    const look = lookups();
    expect(await failures(listOf(look), { ...good, email: 'not-an-email' })).toEqual({
      email: [{ rule: 'email' }],
    });
    expect(look.taken.mock.calls.map(([column]) => column)).toEqual(['username']);
  });

  it('explain a refused write: every taken field, the refusal kept, in the list order', async () => {
    const look = lookups(['email:kim@example.com', 'username:kim']);
    const refusal = new ValidationError({ username: [{ rule: 'unique' }] });
    const explained = await explainRefusal(listOf(look), good, refusal, good, {});
    expect(explained.failures).toEqual({ email: [{ rule: 'unique' }], username: [{ rule: 'unique' }] });
    expect(Object.keys(explained.failures)).toEqual(['email', 'username']);
  });

  it('keep a refusal the lookups cannot confirm (the holder left in between), and fields outside the list', async () => {
    const refusal = new ValidationError({ alpha_user_id: [{ rule: 'unique' }] });
    expect(await explainRefusal(listOf(lookups()), good, refusal, good, {})).toBe(refusal);
    const look = lookups(['username:kim']);
    expect((await explainRefusal(listOf(look), good, refusal, good, {})).failures).toEqual({
      username: [{ rule: 'unique' }],
      alpha_user_id: [{ rule: 'unique' }],
    });
  });

  it("must be a field's last rule: one added after it is refused when the rules are built", () => {
    expect(() =>
      string()
        .unique(lookups().email, { name: 'users,email', ...taken })
        .max(255),
    ).toThrow(/left to the write/);
  });
});
