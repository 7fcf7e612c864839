import type { RuleFailure } from '../errors.js';
import type { FieldSpec } from './field.js';
import { renderFailure } from './messages.js';
import type { AnyField, RuleList } from './rule-list.js';
import type { JsonSchema } from './types.js';

/** What a value of the wrong type answers, by the field's kind (the coercion step of field-kinds.ts). */
const TYPE_FAILURE: Record<FieldSpec['kind'], RuleFailure> = {
  string: { rule: 'string' },
  integer: { rule: 'integer' },
  boolean: { rule: 'boolean' },
  accepted: { rule: 'accepted' },
  file: { rule: 'file' },
  array: { rule: 'array' },
  files: { rule: 'array' },
  object: { rule: 'object' },
};

/**
 * Every failure the field can answer with, in the order the engine checks: presence, type, then its rules
 * (those that declare their failures). Rendered by the same renderer as a real 422, so the documented
 * messages are the ones a client receives.
 */
export function fieldFailures(field: AnyField): RuleFailure[] {
  const presence = field.spec.presence;
  const failures: RuleFailure[] = [];
  if (presence.type === 'required') failures.push({ rule: 'required' });
  if (presence.type === 'required_if') {
    failures.push({
      rule: 'required_if',
      params: { other: presence.other, value: presence.values[0] ?? '' },
    });
  }
  const typeFailure = TYPE_FAILURE[field.spec.kind];
  if (typeFailure) failures.push(typeFailure);
  for (const rule of field.spec.rules) failures.push(...(rule.failures ?? []));
  const seen = new Set<string>();
  return failures.filter((failure) => {
    const key = JSON.stringify(failure);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** The field's 422 messages in English and Korean, as a client receives them. */
export function fieldMessages(name: string, field: AnyField): { en: string[]; ko: string[] } {
  const failures = fieldFailures(field);
  return {
    en: failures.map((failure) => renderFailure(name, failure, 'en')),
    ko: failures.map((failure) => renderFailure(name, failure, 'ko')),
  };
}

function fieldSchema(name: string, field: AnyField, withMessages: boolean): JsonSchema {
  const schema: JsonSchema = structuredClone(field.spec.baseSchema);
  for (const rule of field.spec.rules) rule.schema?.(schema);
  const presence = field.spec.presence;
  const notes: string[] = [];
  if (field.spec.description) notes.push(field.spec.description);
  if (presence.type === 'required_if')
    notes.push(`Required when \`${presence.other}\` is ${presence.values.join(' or ')}.`);
  const ruleNames = field.spec.rules.map((rule) => rule.name);
  notes.push(
    `Rules: ${[presence.type === 'optional' ? 'optional' : presence.type, ...ruleNames].join(' | ')}`,
  );
  schema.description = notes.join(' ');
  if (withMessages) {
    const messages = fieldMessages(name, field);
    schema.description += `. 422: ${messages.en.map((message) => `“${message}”`).join(', ')}`;
    schema['x-messages'] = messages;
  }
  return schema;
}

/**
 * The JSON Schema of a rule list's parameters (with `messages`, each field's 422 messages too: in its
 * description, and in English and Korean as `x-messages`). Generated from the same rule objects the endpoint validates
 * with, so the documentation cannot drift from the behaviour.
 */
export function ruleListSchema(list: RuleList, options: { messages?: boolean } = {}): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, field] of Object.entries(list)) {
    properties[name] = fieldSchema(name, field, options.messages ?? false);
    if (field.spec.presence.type === 'required') required.push(name);
  }
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}
