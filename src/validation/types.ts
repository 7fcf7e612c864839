import type { RuleFailure } from '../errors.js';

/** A file from a multipart body, held in memory (bounded by the file size limit). */
export interface UploadedFile {
  readonly kind: 'uploaded-file';
  readonly fieldName: string;
  readonly fileName: string;
  readonly declaredType: string;
  readonly data: Buffer;
  /** The upload was cut off at the size limit: `data` is incomplete. */
  readonly truncated: boolean;
}

/**
 * A top-level parameter that was sent empty (`bio=`, `"bio": null`). Every rule treats it as absent, as
 * Laravel's ConvertEmptyStringsToNull makes it; a field declared `nullable()` reads it as "clear the value".
 */
export const CLEARED: unique symbol = Symbol('cleared');

export function isUploadedFile(value: unknown): value is UploadedFile {
  return typeof value === 'object' && value !== null && (value as UploadedFile).kind === 'uploaded-file';
}

/**
 * The question of a `unique` or `exists` rule, handed in by the module that holds the data (the engine knows
 * no table): whether someone other than the user `exceptUserId` already holds `value`, compared as that
 * module compares it (users' names case-insensitively).
 */
export type TakenLookup = (value: string, exceptUserId: string | undefined) => Promise<boolean>;

/** How a `unique` rule is named and run (see Field.unique). */
export interface UniqueOptions {
  /** What the documentation calls the lookup, Laravel-style: `users,email` makes `unique:users,email`. */
  readonly name: string;
  /** The signed-in user's own value is not "taken" (a user may re-case their own name). */
  readonly ignoreCurrentUser?: boolean;
  /** The request's write makes the check under a unique index (`Rule.leftToWrite`). */
  readonly leftToWrite?: boolean;
}

export interface RuleContext {
  /** Every normalised parameter of the request, for rules that compare fields. */
  readonly bag: Readonly<Record<string, unknown>>;
  /** The signed-in user, for uniqueness rules that ignore the user itself. */
  readonly currentUserId: string | undefined;
}

export type RuleResult = RuleFailure | undefined;

export interface Rule<T> {
  /** Laravel-style name for documentation, e.g. `max:255`. */
  readonly name: string;
  /** The failures this rule can answer with: /openapi.json lists their messages (documentation only). */
  readonly failures?: readonly RuleFailure[];
  check(value: T, context: RuleContext, field: string): RuleResult | Promise<RuleResult>;
  /** Adds what this rule means to the field's JSON Schema. */
  schema?(schema: JsonSchema): void;
  /**
   * The request's write makes this check itself (a unique index refuses the value): the engine skips it when
   * every field passes, makes it when another field fails, and the endpoint makes it again when the write
   * refuses a value, so a 422 still names every failing field (engine.ts). Only ever a field's last rule.
   */
  readonly leftToWrite?: boolean;
}

/** A checked value in the form the handler wants it (e.g. an image with what its header said). */
export interface Converted<U> {
  readonly converted: U;
}

/**
 * A rule that, when the value passes, hands on what it learned as the field's new value: an image becomes
 * `{file, probe}`, a cursor string the decoded cursor. The rules after it, and the handler, see the new value,
 * so nothing a rule learned travels beside the parameters untyped.
 */
export interface ConvertingRule<T, U> {
  readonly name: string;
  /** The failures this rule can answer with: /openapi.json lists their messages (documentation only). */
  readonly failures?: readonly RuleFailure[];
  check(value: T, context: RuleContext, field: string): Promise<RuleFailure | Converted<U>>;
  schema?(schema: JsonSchema): void;
}

/** One step of a field's checks, whatever the value's type at that step (the Field class keeps the types). */
export interface FieldStep {
  readonly name: string;
  /** The failures this rule can answer with: /openapi.json lists their messages (documentation only). */
  readonly failures?: readonly RuleFailure[];
  check(
    value: unknown,
    context: RuleContext,
    field: string,
  ): RuleResult | Converted<unknown> | Promise<RuleResult | Converted<unknown>>;
  schema?(schema: JsonSchema): void;
  /** See `Rule.leftToWrite`. */
  readonly leftToWrite?: boolean;
}

export type JsonSchema = Record<string, unknown>;
