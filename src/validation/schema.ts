import type { AnyField, RuleList } from './fields.js';
import type { JsonSchema } from './types.js';

function fieldSchema(field: AnyField): JsonSchema {
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
  return schema;
}

/**
 * The JSON Schema of a rule list's parameters. Generated from the same rule objects the endpoint validates
 * with, so the documentation cannot drift from the behaviour.
 */
export function ruleListSchema(list: RuleList): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, field] of Object.entries(list)) {
    properties[name] = fieldSchema(field);
    if (field.spec.presence.type === 'required') required.push(name);
  }
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}
