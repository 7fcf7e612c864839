import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.js';
import { validate } from '../../src/validation/engine.js';
import { object } from '../../src/validation/field-kinds.js';
import { rules } from '../../src/validation/rule-list.js';
import { ruleListSchema } from '../../src/validation/schema.js';
import { CLEARED } from '../../src/validation/types.js';

describe('object fields', () => {
  const list = rules({ response: object({ required: ['id'] }).required() });

  it('passes a plain object through, nested members and all', async () => {
    const value = { id: 'abc', response: { clientDataJSON: 'eyJ9' }, transports: ['internal'] };
    expect(await validate(list, { response: value })).toEqual({ response: value });
  });

  it('refuses anything but a plain object with a 422 on the field', async () => {
    for (const value of ['text', 42, ['a'], true]) {
      const error = await validate(list, { response: value }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).failures).toEqual({ response: [{ rule: 'object' }] });
    }
    const missing = await validate(list, { response: CLEARED }).catch((caught: unknown) => caught);
    expect((missing as ValidationError).failures).toEqual({ response: [{ rule: 'required' }] });
  });

  it('documents itself as an open JSON object with its members', () => {
    expect(ruleListSchema(list).properties).toMatchObject({
      response: { type: 'object', additionalProperties: true, required: ['id'] },
    });
  });
});
