import type { AccountEraser } from '../account/deletion/eraser.js';
import type { ScheduledDeletions } from '../account/deletion/scheduled.js';
import type { IdentityVerifications } from '../account/identity/service.js';
import type { SecondFactorReset } from '../account/second-factor/operator-reset.js';
import type { Config } from '../config.js';
import type { DatabaseHandle } from '../db/client.js';
import { DataDirInUseError } from '../db/data-dir-lock.js';
import { pendingMigrations } from '../db/migrate.js';
import { openConfiguredDatabase } from '../db/open-configured.js';
import { secretsKeyNotice, withSecretsKey } from '../db/secrets-key-file.js';
import type { AccessReview } from '../modules/access-records/review.js';
import type { AccessRecords } from '../modules/access-records/service.js';
import type { ConsentHistory } from '../modules/consents/history.js';
import type { ConsentReminders } from '../modules/consents/reminders.js';
import type { ConsentsService } from '../modules/consents/service.js';
import type { PostModeration } from '../modules/posts/moderation.js';
import type { PostsService } from '../modules/posts/service.js';
import type { PromotionsService } from '../modules/promotions/service.js';
import type { ServiceCredentials } from '../modules/service-credentials/service.js';
import type { SigningKeys } from '../modules/signing-keys/service.js';
import type { StaffService } from '../modules/staff/service.js';
import type { TokensService } from '../modules/tokens/service.js';
import type { UserImportService } from '../modules/users/import-service.js';
import type { UserListService } from '../modules/users/list-service.js';
import type { UserOperationsService } from '../modules/users/operator-service.js';
import type { WebhookEndpoints } from '../modules/webhooks/endpoints-service.js';
import type { PushLogger } from '../push/transport.js';
import { buildInfrastructure, type Infrastructure } from '../services/infrastructure.js';
import { buildServices, type Services } from '../services.js';
import { OperatorError } from './output.js';
import { printProblemLine, type Terminal } from './terminal.js';

/** The services operator commands work through (never SQL of their own). */
export interface OperatorServices {
  users: UserOperationsService;
  promotions: PromotionsService;
  tokens: TokensService;
  posts: PostsService;
  /** Posts hidden or not, and hiding them (`accounts post show|hide|unhide`), as the console does. */
  moderation: PostModeration;
  deletion: AccountEraser;
  /** Schedules a deletion as user/delete does (its grace period, its mail); `enabled` is false without one. */
  scheduledDeletions: ScheduledDeletions;
  importer: UserImportService;
  /** Finds accounts by the start of an email, username, slug or id (`accounts user list`). */
  userList: UserListService;
  consents: ConsentsService;
  consentReminders: ConsentReminders;
  consentHistory: ConsentHistory;
  secondFactor: SecondFactorReset;
  webhooks: WebhookEndpoints;
  /** Releases an account's identity verification (`accounts identity release`). */
  identity: IdentityVerifications;
  /** The access tokens' signing keys (`accounts keys`). */
  signingKeys: SigningKeys;
  /** The other services' introspection credentials (`accounts service`). */
  serviceCredentials: ServiceCredentials;
  /** The console's staff accounts and the record of their rights (`accounts staff`). */
  staff: StaffService;
  /** The access records the user commands append to, and their verification (`accounts audit`). */
  accessRecords: AccessRecords;
  accessReview: AccessReview;
}

/**
 * A command's log: what the server logs as lines (a mail sent, a retry planned), a command says only when
 * something went wrong, on stderr.
 */
function commandLog(terminal: Terminal): PushLogger {
  // One line; an error in the details as its message (JSON has no place for an Error's own).
  const printProblem = (details: object, message: string) =>
    printProblemLine(
      terminal,
      `${message} ${JSON.stringify(details, (_key, value: unknown) => (value instanceof Error ? value.message : value))}`,
    );
  return { info: () => undefined, warn: printProblem, error: printProblem };
}

/** The operator commands' view of the services: the server's own, named as the commands use them. */
export function operatorServices(services: Services): OperatorServices {
  return {
    users: services.operations,
    promotions: services.promotions,
    tokens: services.tokens,
    posts: services.posts,
    moderation: services.postModeration,
    // Operators are not re-authenticated (they hold the database): they use the eraser itself.
    deletion: services.eraser,
    scheduledDeletions: services.scheduledDeletions,
    importer: services.userImport,
    userList: services.userList,
    consents: services.consents,
    consentReminders: services.consentReminders,
    consentHistory: services.consentHistory,
    secondFactor: services.secondFactorReset,
    webhooks: services.webhookEndpoints,
    identity: services.identity,
    signingKeys: services.signingKeys,
    serviceCredentials: services.serviceCredentials,
    staff: services.staff,
    accessRecords: services.accessRecords,
    accessReview: services.accessReview,
  };
}

/**
 * DATA_DIR is held by another process (a running server, or another command): the command stopped before
 * PGlite opened a file, so nothing hangs and nothing is corrupted. The `accounts` process then hands its
 * command line to that server (command-client.ts); the message is for a caller that cannot.
 */
export class DataDirHeldError extends OperatorError {
  constructor(
    readonly dataDir: string,
    readonly owner: number,
  ) {
    super(
      `DATA_DIR ${dataDir} is in use by a running accounts server (pid ${owner}): stop the server first, or ` +
        'set DATABASE_URL to run commands beside running servers',
    );
    this.name = 'DataDirHeldError';
  }
}

/** Opens the configured database for operator commands; with DATABASE_URL beside any number of servers. */
async function openForOperator(config: Config): Promise<DatabaseHandle> {
  try {
    return await openConfiguredDatabase(config);
  } catch (error) {
    if (error instanceof DataDirInUseError) throw new DataDirHeldError(config.dataDir, error.owner);
    throw error;
  }
}

/** The operator services on the configured database, open until `close`. */
export interface OperatorSession {
  readonly services: OperatorServices;
  /** Resolves once the mail the commands so far wrote has been sent (or planned for a retry). */
  settle(): Promise<void>;
  /** Sends what is left, then closes the infrastructure (the mailer, the storage's sockets) and the database. */
  close(): Promise<void>;
}

/** A session on a database its caller keeps open (a server's), and the caller's pools when it has them. */
export interface SessionOnDatabase {
  database: DatabaseHandle;
  /** Closes the database with the session (a command's own); a server's stays open. */
  closeDatabase: boolean;
  pools?: Pick<Infrastructure, 'hashing' | 'imageRenderer'>;
}

/**
 * Refuses a database that lacks migrations, reads SECRETS_KEY as the server does, and builds the operator
 * services on the database: the server's infrastructure and services, with what a command does differently
 * (role `command`: no limits, mail sent as written, problems on the command's stderr).
 */
export async function operatorSessionOn(
  givenConfig: Config,
  terminal: Terminal,
  { database, closeDatabase, pools }: SessionOnDatabase,
): Promise<OperatorSession> {
  const closeOwn = async () => {
    if (closeDatabase) await database.close();
  };
  let config: Config;
  let infrastructure: Infrastructure;
  try {
    const pending = await pendingMigrations(database);
    if (pending.length > 0) {
      throw new OperatorError(
        `The database lacks migrations ${pending.join(', ')}: run "accounts migrate" first`,
      );
    }
    // The server's key: read from DATA_DIR on the embedded database (made there if no server has started yet).
    const keyed = await withSecretsKey(givenConfig);
    if (keyed.generated !== undefined) printProblemLine(terminal, secretsKeyNotice(keyed.generated));
    config = keyed.config;
    infrastructure = await buildInfrastructure(config, {
      database,
      role: 'command',
      log: commandLog(terminal),
      // A file that cannot be removed is named, so the operator can remove it.
      reportCleanupFailure: (keys) =>
        printProblemLine(terminal, `Could not remove the files ${keys.join(', ')}; remove them by hand.`),
      hashing: pools?.hashing,
      imageRenderer: pools?.imageRenderer,
    });
  } catch (error) {
    await closeOwn();
    throw error;
  }
  const { mailer } = infrastructure;
  return {
    services: operatorServices(buildServices({ config, deps: infrastructure })),
    // Mail a command writes is sent before it exits (a send that fails is retried by the servers' retrier).
    settle: () => mailer.idle(),
    close: async () => {
      try {
        await infrastructure.close();
      } finally {
        await closeOwn();
      }
    },
  };
}

/**
 * Opens the configured database, refuses one that lacks migrations, and builds the operator services on it.
 * A command runs in one session; a caller running many commands in one process may keep one open.
 */
export async function openOperatorSession(config: Config, terminal: Terminal): Promise<OperatorSession> {
  const database = await openForOperator(config);
  return operatorSessionOn(config, terminal, { database, closeDatabase: true });
}

/** Runs `work` with the operator services on the configured database, and closes it after. */
export async function withOperatorServices<T>(
  config: Config,
  terminal: Terminal,
  work: (services: OperatorServices) => Promise<T>,
): Promise<T> {
  const session = await openOperatorSession(config, terminal);
  try {
    return await work(session.services);
  } finally {
    await session.close();
  }
}
