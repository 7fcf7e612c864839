import { type FieldFailures, ValidationError } from '../errors.js';
import type { AnyField, Params, RuleList } from './rule-list.js';
import { CLEARED, type FieldStep, type RuleContext } from './types.js';

export interface ValidationOptions {
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

/** A field's last check, left to the request's write (`Rule.leftToWrite`), with the value it would check. */
interface LeftToWrite {
  name: string;
  step: FieldStep;
  value: unknown;
}

async function checkField(
  name: string,
  field: AnyField,
  context: RuleContext,
  leftToWrite: LeftToWrite[],
): Promise<FieldOutcome> {
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
    if (rule.leftToWrite) {
      // Always the field's last rule (field.ts allows none after it): the field has passed everything else.
      leftToWrite.push({ name, step: rule, value });
      break;
    }
    const result = await rule.check(value, context, name);
    if (result === undefined) continue;
    // A converting rule hands on what it learned (an image's probe, a decoded cursor) as the value.
    if ('converted' in result) value = result.converted;
    else return { ok: false, failures: [result] };
  }
  return { ok: true, value };
}

/** The failures of the checks left to the write, made now (concurrently). */
async function checkLeftToWrite(checks: LeftToWrite[], context: RuleContext): Promise<FieldFailures> {
  const results = await Promise.all(checks.map(({ name, step, value }) => step.check(value, context, name)));
  const failures: FieldFailures = {};
  checks.forEach(({ name }, index) => {
    const result = results[index];
    if (result !== undefined && !('converted' in result)) failures[name] = [result];
  });
  return failures;
}

/**
 * The failures keyed in the rule list's order, as the 422 lists them whichever check found them first (a
 * handler's own fields, outside the list, after them).
 */
function inListOrder(list: RuleList, failures: FieldFailures): FieldFailures {
  const ordered: FieldFailures = {};
  for (const name of [...Object.keys(list), ...Object.keys(failures)]) {
    const found = failures[name];
    if (found && !(name in ordered)) ordered[name] = found;
  }
  return ordered;
}

function contextOf(bag: Readonly<Record<string, unknown>>, options: ValidationOptions): RuleContext {
  return { bag, currentUserId: options.currentUserId };
}

/**
 * Checks every field of the rule list against the parameter bag and reports every failing field together,
 * as Laravel does. Returns only the listed fields, typed by the rule list; unknown parameters are dropped.
 *
 * A check left to the write (`Rule.leftToWrite`: register's uniqueness, which the unique indexes make anyway)
 * is skipped when every field passes: the write refuses a taken value, and `explainRefusal` names every
 * taken field then. When another field fails, it is made here, so the 422 is the same either way.
 */
export async function validate<L extends RuleList>(
  list: L,
  bag: Readonly<Record<string, unknown>>,
  options: ValidationOptions = {},
): Promise<Params<L>> {
  const context = contextOf(bag, options);
  const names = Object.keys(list);
  const leftToWrite: LeftToWrite[] = [];
  const outcomes = await Promise.all(
    names.map((name) => checkField(name, list[name] as AnyField, context, leftToWrite)),
  );
  const failures: FieldFailures = {};
  const params: Record<string, unknown> = {};
  outcomes.forEach((outcome, index) => {
    const name = names[index] as string;
    if (outcome.ok === true) params[name] = outcome.value;
    else if (outcome.ok === false) failures[name] = outcome.failures;
  });
  if (Object.keys(failures).length > 0) {
    if (leftToWrite.length === 0) throw new ValidationError(failures);
    const late = await checkLeftToWrite(leftToWrite, context);
    throw new ValidationError(inListOrder(list, { ...failures, ...late }));
  }
  return params as Params<L>;
}

/** Does any field of the list leave its last check to the write? */
export function leavesChecksToWrite(list: RuleList): boolean {
  return Object.values(list).some((field) => (field as AnyField).spec.rules.at(-1)?.leftToWrite === true);
}

/**
 * A handler refused the request with a 422 (its write hit a unique index, or a rule of its own failed) after
 * `validate` had left checks to the write: makes those checks now, so the answer names every failing field
 * (both a taken email and a taken username, say), as it would have had they run before. `params` are what
 * `validate` returned: each field's value as its last check would have seen it.
 */
export async function explainRefusal(
  list: RuleList,
  params: Readonly<Record<string, unknown>>,
  refusal: ValidationError,
  bag: Readonly<Record<string, unknown>>,
  options: ValidationOptions,
): Promise<ValidationError> {
  const checks: LeftToWrite[] = [];
  for (const [name, field] of Object.entries(list)) {
    const step = (field as AnyField).spec.rules.at(-1);
    if (step?.leftToWrite && params[name] !== undefined && params[name] !== null) {
      checks.push({ name, step, value: params[name] });
    }
  }
  const found = await checkLeftToWrite(checks, contextOf(bag, options));
  if (Object.keys(found).length === 0) return refusal;
  return new ValidationError(inListOrder(list, { ...found, ...refusal.failures }));
}
