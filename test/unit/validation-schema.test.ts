import { describe, expect, it } from 'vitest';
import { accepted, file, integer, rules, string, stringArray } from '../../src/validation/fields.js';
import { ruleListSchema } from '../../src/validation/schema.js';

describe('ruleListSchema', () => {
  it('describes each field from the same rules that validate it', () => {
    const list = rules({
      email: string().required().max(255).email().unique('email').describe('Your address.'),
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
      login: string().exists('email'),
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
