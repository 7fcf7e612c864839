/**
 * Writes the embedded database's template into dist/ (db/pglite-template.ts): the last step of
 * `npm run build`, so every build carries a template with exactly its own migrations.
 */
import { BUILT_TEMPLATE, writeTemplate } from './db/pglite-template.js';

await writeTemplate();
console.log(`wrote ${BUILT_TEMPLATE}`);
