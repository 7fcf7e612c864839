import {
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  PostgresQueryCompiler,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';

/**
 * Counts every statement the app sends through Kysely and keeps each compiled (to read or EXPLAIN it).
 * Transaction control (BEGIN, COMMIT) does not pass through plugins and is not counted.
 */
export class QueryRecorder implements KyselyPlugin {
  count = 0;
  readonly statements: Array<{ sql: string; parameters: readonly unknown[] }> = [];
  readonly #compiler = new PostgresQueryCompiler();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.count++;
    const compiled = this.#compiler.compileQuery(args.node, args.queryId);
    this.statements.push({ sql: compiled.sql, parameters: compiled.parameters });
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }

  reset(): void {
    this.count = 0;
    this.statements.length = 0;
  }
}
