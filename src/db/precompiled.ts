import { type Compilable, CompiledQuery, type RawBuilder } from 'kysely';
import { markedForPreparing } from './prepared-statements.js';
import type { Executor } from './transaction.js';

/** A stand-in value: found by identity among the compiled parameters, where the call's value goes. */
interface Slot {
  readonly slot: number;
}

/** What a query builder offers: compiling it, and running it the ordinary way. */
type Buildable<Row> = Compilable<Row> & { execute(): Promise<Row[]> };

/**
 * A raw `sql` statement in the builder's shape, for a statement the query builder cannot express: compiled
 * and run on `db` like any builder, so `Precompiled` can prepare it.
 */
export function rawStatement<Row>(db: Executor, statement: RawBuilder<Row>): Buildable<Row> {
  return {
    compile: () => statement.compile(db),
    execute: async () => (await statement.execute(db)).rows,
  };
}

/** The SQL, its parameters, and for each parameter the slot whose value it takes (-1: a constant). */
interface Compiled {
  sql: string;
  parameters: unknown[];
  positions: number[];
}

/**
 * Finds where each of `slots` went in a query compiled with them for its values. A slot the SQL does
 * not carry as a parameter would silently bind nothing: refused at once, named by `nameOf`.
 */
function withSlots(
  compiled: CompiledQuery<unknown>,
  slots: readonly Slot[],
  nameOf: (slot: number) => string,
): Compiled {
  const positions = compiled.parameters.map((parameter) => slots.indexOf(parameter as Slot));
  for (const slot of slots) {
    if (!positions.includes(slot.slot))
      throw new Error(`precompiled query does not use value ${nameOf(slot.slot)}`);
  }
  // The same SQL every call: marked, it runs as a named statement, planned once per connection.
  return { sql: markedForPreparing(compiled.sql), parameters: [...compiled.parameters], positions };
}

/** Runs compiled SQL with `values` (one per slot) in the slots' places. */
async function runCompiled<Row>(
  db: Executor,
  compiled: Compiled,
  values: readonly unknown[],
): Promise<Row[]> {
  const { sql, parameters, positions } = compiled;
  const bound = parameters.map((constant, i) => {
    const position = positions[i] ?? -1;
    return position === -1 ? constant : values[position];
  });
  const result = await db.executeQuery(CompiledQuery.raw(sql, bound) as CompiledQuery<Row>);
  return result.rows;
}

/** Only the tests' query capture and the like add plugins; a plugin may rewrite each query, so none is compiled. */
function hasPlugins(db: Executor): boolean {
  return db.getExecutor().plugins.length > 0;
}

/**
 * A query compiled to SQL once and run with each call's values. Kysely compiles a builder on every call
 * (builds the tree, walks it, joins the SQL string); on the hottest paths (the uniqueness check, the token
 * lookup of every authenticated request) the SQL never changes, only the values do. The builder is the same
 * one the code would run, so the SQL is the same parameterised statement, on PostgreSQL and PGlite alike.
 * On a Kysely instance with plugins (which may rewrite each query, e.g. the tests' query capture) it is built
 * and run per call as usual.
 *
 * This form takes its values by position, for a query of one or two; `Precompiled.named` takes an object.
 */
export class Precompiled<Row> {
  #compiled: Compiled | undefined;

  /** `build` gets one placeholder per value (in order) and must use each as a value of the query. */
  constructor(
    private readonly arity: number,
    private readonly build: (db: Executor, ...values: never[]) => Buildable<Row>,
  ) {}

  /**
   * A query whose values come as one object, read by name: `build` gets an object shaped like the call's, in
   * which every value it reads is a placeholder. A plain object inside it is a group of values (read on by
   * name: `{user: {id, email}, token: {…}}`); anything else (a string, a Buffer, a Date, an array, null) is
   * one value. The shape is taken from the first call; each value `build` reads must be a value of the query.
   */
  static named<Inputs extends object, Row>(
    build: (db: Executor, inputs: Inputs) => Buildable<Row>,
  ): NamedPrecompiled<Inputs, Row> {
    return new NamedPrecompiled(build);
  }

  async execute(db: Executor, ...values: unknown[]): Promise<Row[]> {
    if (hasPlugins(db)) return this.build(db, ...(values as never[])).execute();
    this.#compiled ??= this.compile(db);
    return runCompiled(db, this.#compiled, values);
  }

  private compile(db: Executor): Compiled {
    const slots: Slot[] = Array.from({ length: this.arity }, (_, slot) => ({ slot }));
    return withSlots(this.build(db, ...(slots as never[])).compile(), slots, String);
  }
}

/** Where a value is found in a call's inputs: the names leading to it. */
type Path = readonly string[];

function isGroup(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function valueAt(inputs: unknown, path: Path): unknown {
  let value = inputs;
  for (const name of path) value = (value as Record<string, unknown>)[name];
  return value;
}

/** `Precompiled.named`: the values by name, from an object (a statement of many rows, each its own group). */
export class NamedPrecompiled<Inputs extends object, Row> {
  #compiled: { query: Compiled; paths: Path[] } | undefined;

  constructor(private readonly build: (db: Executor, inputs: Inputs) => Buildable<Row>) {}

  async execute(db: Executor, inputs: Inputs): Promise<Row[]> {
    if (hasPlugins(db)) return this.build(db, inputs).execute();
    this.#compiled ??= this.compile(db, inputs);
    const { query, paths } = this.#compiled;
    return runCompiled(
      db,
      query,
      paths.map((path) => valueAt(inputs, path)),
    );
  }

  /**
   * Builds the query once with placeholders: `build` reads the call's shape through proxies that hand out a
   * slot for each value it reads (the same slot each time it reads it) and a proxy for each group. Values it
   * never reads are no part of the query; a group it uses as a value, or a value it reads but leaves out of
   * the SQL, is refused, as is a name the first call did not give (it would bind nothing on later calls).
   */
  private compile(db: Executor, first: Inputs): { query: Compiled; paths: Path[] } {
    const slots: Slot[] = [];
    const paths: Path[] = [];
    const groups = new Set<object>();
    const slotOf = new Map<string, Slot>();
    const placeholders = (group: Record<string, unknown>, path: Path): object => {
      const proxy = new Proxy(
        { ...group },
        {
          get(target, name, receiver) {
            if (typeof name !== 'string') return Reflect.get(target, name, receiver);
            const at = [...path, name];
            if (!(name in target)) {
              throw new Error(`precompiled query reads ${at.join('.')}, which its first call did not give`);
            }
            const value = target[name];
            if (isGroup(value)) return placeholders(value, at);
            const key = at.join('.');
            let slot = slotOf.get(key);
            if (!slot) {
              slot = { slot: slots.length };
              slots.push(slot);
              paths.push(at);
              slotOf.set(key, slot);
            }
            return slot;
          },
        },
      );
      groups.add(proxy);
      return proxy;
    };
    const compiled = this.build(
      db,
      placeholders({ ...(first as Record<string, unknown>) }, []) as Inputs,
    ).compile();
    if (compiled.parameters.some((parameter) => groups.has(parameter as object))) {
      throw new Error('precompiled query uses a group of its inputs as one value (pass JSON as text)');
    }
    const query = withSlots(compiled, slots, (slot) => (paths[slot] ?? []).join('.'));
    return { query, paths };
  }
}
