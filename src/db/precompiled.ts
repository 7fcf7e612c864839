import { type Compilable, CompiledQuery } from 'kysely';
import { registerPreparedStatement } from './prepared-statements.js';
import type { Executor } from './transaction.js';

/** A stand-in value: found by identity among the compiled parameters, where the call's value goes. */
interface Slot {
  readonly slot: number;
}

/** What a query builder offers: compiling it, and running it the ordinary way. */
type Buildable<Row> = Compilable<Row> & { execute(): Promise<Row[]> };

/**
 * A query compiled to SQL once and run with each call's values. Kysely compiles a builder on every call
 * (builds the tree, walks it, joins the SQL string); on the hottest paths (the uniqueness check, the token
 * lookup of every authenticated request) the SQL never changes, only the values do. The builder is the same
 * one the code would run, so the SQL is the same parameterised statement, on PostgreSQL and PGlite alike.
 * On a Kysely instance with plugins (which may rewrite each query, e.g. the tests' query capture) it is built
 * and run per call as usual.
 */
export class Precompiled<Row> {
  #compiled: { sql: string; parameters: unknown[]; positions: number[] } | undefined;

  /** `build` gets one placeholder per value (in order) and must use each as a value of the query. */
  constructor(
    private readonly arity: number,
    private readonly build: (db: Executor, ...values: never[]) => Buildable<Row>,
  ) {}

  async execute(db: Executor, ...values: unknown[]): Promise<Row[]> {
    if (db.getExecutor().plugins.length > 0) return this.build(db, ...(values as never[])).execute();
    this.#compiled ??= this.compile(db);
    const { sql, parameters, positions } = this.#compiled;
    const bound = parameters.map((constant, i) => {
      const position = positions[i] ?? -1;
      return position === -1 ? constant : values[position];
    });
    const result = await db.executeQuery(CompiledQuery.raw(sql, bound) as CompiledQuery<Row>);
    return result.rows;
  }

  private compile(db: Executor): { sql: string; parameters: unknown[]; positions: number[] } {
    const slots: Slot[] = Array.from({ length: this.arity }, (_, slot) => ({ slot }));
    const compiled = this.build(db, ...(slots as never[])).compile();
    const positions = compiled.parameters.map((parameter) => slots.indexOf(parameter as Slot));
    // A placeholder the SQL does not carry as a parameter would silently bind nothing: refuse at once.
    for (const slot of slots) {
      if (!positions.includes(slot.slot))
        throw new Error(`precompiled query does not use value ${slot.slot}`);
    }
    // The same SQL every call: on a PostgreSQL server it runs as a named statement, planned once per connection.
    registerPreparedStatement(compiled.sql);
    return { sql: compiled.sql, parameters: [...compiled.parameters], positions };
  }
}
