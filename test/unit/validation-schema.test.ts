import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { validate } from '../../src/validation/engine.js';
import { accepted, file, integer, string, stringArray } from '../../src/validation/field-kinds.js';
import { renderFailures } from '../../src/validation/messages.js';
import { rules } from '../../src/validation/rule-list.js';
import { fieldMessages, ruleListSchema } from '../../src/validation/schema.js';

/** Every value is taken: the uniqueness rules fail, and `exists` passes. */
const taken = async () => true;

describe('ruleListSchema', () => {
  it('describes each field from the same rules that validate it', () => {
    const list = rules({
      email: string()
        .required()
        .max(255)
        .email()
        .unique(taken, { name: 'users,email' })
        .describe('Your address.'),
      slug: string()
        .min(4)
        .max(256)
        .pattern(/^[a-z]+$/),
      gender: integer().required().in([0, 1]),
      limit: integer().min(1).max(100),
      agree: accepted().required(),
      password: string().min(8).requiredIf('type', ['email']),
      exclude: stringArray().min(1).max(10),
      picture: file().max(1024),
      login: string().exists(taken, 'users,email'),
    });
    expect(ruleListSchema(list)).toEqual({
      type: 'object',
      required: ['email', 'gender', 'agree'],
      properties: {
        email: {
          type: 'string',
          maxLength: 255,
          format: 'email',
          'x-unique': true,
          description: 'Your address. Rules: required | max:255 | email | unique:users,email',
        },
        slug: {
          type: 'string',
          minLength: 4,
          maxLength: 256,
          pattern: '^[a-z]+$',
          description: 'Rules: optional | min:4 | max:256 | regex:^[a-z]+$',
        },
        gender: { type: 'integer', enum: [0, 1], description: 'Rules: required | in:0,1' },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: 100,
          description: 'Rules: optional | min:1 | max:100',
        },
        agree: { type: 'string', enum: ['on', 'yes', '1', 'true'], description: 'Rules: required' },
        password: {
          type: 'string',
          minLength: 8,
          description: 'Required when `type` is email. Rules: required_if | min:8',
        },
        exclude: {
          type: 'array',
          items: { type: 'string' },
          minItems: 1,
          maxItems: 10,
          description: 'Rules: optional | min:1 | max:10',
        },
        picture: {
          type: 'string',
          format: 'binary',
          'x-max-kilobytes': 1024,
          description: 'Rules: optional | max:1024',
        },
        login: { type: 'string', description: 'Rules: optional | exists:users,email' },
      },
    });
  });

  it('leaves out `required` when no field is required', () => {
    expect(ruleListSchema(rules({}))).toEqual({ type: 'object', properties: {} });
  });

  it('never lets one schema leak into a field shared by another list', () => {
    const shared = string().max(3);
    ruleListSchema(rules({ a: shared.required() }));
    expect(ruleListSchema(rules({ a: shared }))).toEqual({
      type: 'object',
      properties: { a: { type: 'string', maxLength: 3, description: 'Rules: optional | max:3' } },
    });
  });
});

describe('fieldMessages', () => {
  const list = rules({
    email: string().required().max(255).email().unique(taken, { name: 'users,email' }),
    gender: integer().required().in([0, 1]),
    slug: string().min(4).max(256),
    exclude: stringArray().max(3),
    picture: file().max(1024),
  });

  it('lists what each field can answer, in the order the engine checks it, as the renderer words it', () => {
    expect(fieldMessages('email', list.email)).toEqual({
      en: [
        'The email field is required.',
        'The email must be a string.',
        'The email may not be greater than 255 characters.',
        'The email must be a valid email address.',
        'The email has already been taken.',
      ],
      ko: [
        '이메일 필드는 필수입니다.',
        '이메일은 문자열이어야 합니다.',
        '이메일은 255자보다 길 수 없습니다.',
        '이메일은 유효한 이메일 주소여야 합니다.',
        '이메일은 이미 사용 중입니다.',
      ],
    });
    expect(fieldMessages('picture', list.picture).en).toEqual([
      'The picture must be a file.',
      'The picture may not be greater than 1024 kilobytes.',
    ]);
  });

  it('contains every message a real validation answers with', async () => {
    const bags = [
      {},
      { email: 'x'.repeat(300), gender: 'abc', slug: 'ab', exclude: ['a', 'b', 'c', 'd'], picture: 'text' },
      { email: 'not-an-address', gender: '5', slug: 's'.repeat(300), exclude: 'one' },
      { email: 'taken@example.com', gender: '0' },
    ];
    let checked = 0;
    for (const bag of bags) {
      for (const locale of ['en', 'ko'] as const) {
        const error = await validate(list, bag, { currentUserId: undefined }).then(
          () => undefined,
          (failure: unknown) => failure,
        );
        expect(error).toBeInstanceOf(ValidationError);
        const rendered = renderFailures((error as ValidationError).failures, locale);
        for (const [field, messages] of Object.entries(rendered)) {
          const documented = fieldMessages(field, list[field as keyof typeof list])[locale];
          for (const message of messages) {
            expect(documented).toContain(message);
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(15);
  });
});
