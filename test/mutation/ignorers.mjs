import { declareValuePlugin, PluginKind } from '@stryker-mutator/api/plugin';

/** Properties of an endpoint or a field that only document it (the OpenAPI text), never decide anything. */
const DOCUMENTATION_KEYS = new Set(['summary', 'description']);

/**
 * Leaves out the text that only documents: an endpoint's `summary` and `description`, and the argument of a
 * field's `.describe(...)`. A mutant there changes /openapi.json's prose and nothing a client can do, so no
 * test of behaviour can kill it; counting it would only hide the mutants that matter.
 */
const documentation = {
  shouldIgnore(path) {
    const { node, parentPath } = path;
    if (
      node.type === 'ObjectProperty' &&
      node.key.type === 'Identifier' &&
      DOCUMENTATION_KEYS.has(node.key.name)
    ) {
      return 'Documentation text (OpenAPI summary or description)';
    }
    const parent = parentPath?.node;
    if (
      path.listKey === 'arguments' &&
      parent?.type === 'CallExpression' &&
      parent.callee.type === 'MemberExpression' &&
      parent.callee.property.type === 'Identifier' &&
      parent.callee.property.name === 'describe'
    ) {
      return 'Documentation text (a field description)';
    }
    return undefined;
  },
};

export const strykerPlugins = [declareValuePlugin(PluginKind.Ignore, 'documentation', documentation)];
