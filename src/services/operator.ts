import { SecondFactorReset } from '../account/second-factor/operator-reset.js';
import type { Config } from '../config.js';
import { primaryReads } from '../db/read-routing.js';
import { ConsentHistory } from '../modules/consents/history.js';
import { ConsentHistoryRepo } from '../modules/consents/history-repo.js';
import { UserImportRepo } from '../modules/users/import-repo.js';
import { UserImportService } from '../modules/users/import-service.js';
import { buildDeletion } from './deletion.js';
import type { ServiceDeps } from './deps.js';
import { buildEntities } from './entities.js';
import { buildIdentity } from './identity.js';
import { buildSecurityLog } from './security.js';
import { buildSignIn } from './sign-in.js';
import { buildWebhooks } from './webhooks.js';

/**
 * The operator commands' services, from the server's own factories (so a command logs and mails what the
 * server would), limited to the areas a command uses: no push, no passkeys, no data export, no account flows.
 * What differs is handed in through `deps`: unlimited counters, a log that prints, no hashing pool.
 */
export function buildOperatorServices(config: Config, deps: ServiceDeps) {
  const db = deps.database.db;
  // Operators read what they just changed: always the primary.
  const reads = primaryReads(db);
  const { activity } = buildSecurityLog(config, deps);
  const entities = buildEntities(config, deps, { activity, reads });
  const { signIn, gate, secondFactorRepo } = buildSignIn(config, deps, { ...entities, activity });
  // The server's scheduled deletion, its cancel's password check included (no command cancels one).
  const { eraser, scheduledDeletions } = buildDeletion(config, deps, {
    ...entities,
    passwords: signIn,
    gate,
    activity,
  });
  return {
    users: entities.operations,
    promotions: entities.promotions,
    tokens: entities.tokens,
    posts: entities.posts,
    // Operators are not re-authenticated (they hold the database): they use the eraser itself.
    deletion: eraser,
    scheduledDeletions,
    importer: new UserImportService(db, new UserImportRepo(db)),
    consents: entities.consents,
    consentReminders: entities.consentReminders,
    consentHistory: new ConsentHistory(new ConsentHistoryRepo(db)),
    secondFactor: new SecondFactorReset(db, secondFactorRepo, activity),
    webhooks: buildWebhooks(config, deps).webhookEndpoints,
    identity: buildIdentity(config, deps, { activity }).identity,
  };
}

/** What the operator commands get (cli/context.ts's OperatorServices is their view of it). */
export type OperatorServiceSet = ReturnType<typeof buildOperatorServices>;
