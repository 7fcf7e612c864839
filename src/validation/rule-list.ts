import type { Field } from './field.js';

// biome-ignore lint/suspicious/noExplicitAny: a rule list mixes fields of every value type; Params<L> restores them.
export type AnyField = Field<any, boolean>;
export type RuleList = Record<string, AnyField>;

type FieldValue<F> = F extends { readonly __value: infer T } ? T : never;
type RequiredKeys<L extends RuleList> = {
  [K in keyof L]: L[K] extends Field<infer _T, true> ? K : never;
}[keyof L];
type OptionalKeys<L extends RuleList> = Exclude<keyof L, RequiredKeys<L>>;

/** The validated parameters of a rule list: required fields always present, the rest maybe. */
export type Params<L extends RuleList> = { [K in RequiredKeys<L>]: FieldValue<L[K]> } & {
  [K in OptionalKeys<L>]?: FieldValue<L[K]>;
};

/** Declares an endpoint's rule list (an identity function that keeps the exact field types). */
export function rules<L extends RuleList>(list: L): L {
  return list;
}
