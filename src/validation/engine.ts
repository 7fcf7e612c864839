import { type FieldFailures, ValidationError } from '../errors.js';
import type { AnyField, Params, RuleList } from './fields.js';
import { CLEARED, type Lookups, type RuleContext } from './types.js';

export interface ValidationOptions {
  lookups: Lookups;
  currentUserId?: string | undefined;
}

type FieldOutcome =
  | { ok: true; value: unknown }
  | { ok: false; failures: FieldFailures[string] }
  | { ok: 'absent' };

function isRequired(field: AnyField, bag: Readonly<Record<string, unknown>>): boolean | 'required_if' {
  const presence = field.spec.presence;
  if (presence.type === 'required') return true;
  if (presence.type === 'required_if') {
    const other = bag[presence.other];
    return typeof other === 'string' && presence.values.includes(other) ? 'required_if' : false;
  }
  return false;
}

async function checkField(name: string, field: AnyField, context: RuleContext): Promise<FieldOutcome> {
  const raw = context.bag[name];
  if (raw === undefined || raw === CLEARED) {
    if (raw === CLEARED && field.spec.nullable && field.spec.presence.type === 'optional') {
      return { ok: true, value: null };
    }
    const required = isRequired(field, context.bag);
    if (required === true) return { ok: false, failures: [{ rule: 'required' }] };
    if (required === 'required_if' && field.spec.presence.type === 'required_if') {
      const { other } = field.spec.presence;
      return {
        ok: false,
        failures: [{ rule: 'required_if', params: { other, value: String(context.bag[other]) } }],
      };
    }
    return { ok: 'absent' };
  }
  const coerced = field.spec.coerce(raw);
  if (!coerced.ok) return { ok: false, failures: [coerced.failure] };
  // Rules run in order and the first failure ends the field: a malformed email never costs a uniqueness query.
  let value = coerced.value;
  for (const rule of field.spec.rules) {
    const result = await rule.check(value, context, name);
    if (result === undefined) continue;
    // A converting rule hands on what it learned (an image's probe, a decoded cursor) as the value.
    if ('converted' in result) value = result.converted;
    else return { ok: false, failures: [result] };
  }
  return { ok: true, value };
}

/**
 * Checks every field of the rule list against the parameter bag and reports every failing field together
 * (DESIGN §2.4). Returns only the listed fields, typed by the rule list; unknown parameters are dropped.
 */
export async function validate<L extends RuleList>(
  list: L,
  bag: Readonly<Record<string, unknown>>,
  options: ValidationOptions,
): Promise<Params<L>> {
  const context: RuleContext = {
    bag,
    lookups: options.lookups,
    currentUserId: options.currentUserId,
  };
  const names = Object.keys(list);
  const outcomes = await Promise.all(names.map((name) => checkField(name, list[name] as AnyField, context)));
  const failures: FieldFailures = {};
  const params: Record<string, unknown> = {};
  outcomes.forEach((outcome, index) => {
    const name = names[index] as string;
    if (outcome.ok === true) params[name] = outcome.value;
    else if (outcome.ok === false) failures[name] = outcome.failures;
  });
  if (Object.keys(failures).length > 0) throw new ValidationError(failures);
  return params as Params<L>;
}
