import { ConsoleUserActions } from '../account/console-users/actions.js';
import { ConsoleUserOverview } from '../account/console-users/overview.js';
import { OverviewRepo } from '../account/console-users/overview-repo.js';
import { ConsoleUserSearch } from '../account/console-users/search.js';
import { type AccessEntry, type AccessRecorder, StaffGate } from '../account/console-users/staff-access.js';
import { OperatorDeletionCancel } from '../account/deletion/operator-cancel.js';
import type { ScheduledDeletions } from '../account/deletion/scheduled.js';
import type { SecondFactorReset } from '../account/second-factor/operator-reset.js';
import type { SecurityActivity } from '../account/security-activity/recorder.js';
import type { AccessRecordEntry, AccessRecords } from '../modules/access-records/service.js';
import { ConsentHistoryRepo } from '../modules/consents/history-repo.js';
import { IdentityRepo } from '../modules/identity/repo.js';
import { OneTimeTokensRepo } from '../modules/lifecycle/repo.js';
import type { EmailVerificationService } from '../modules/lifecycle/verification-service.js';
import { PasskeysRepo } from '../modules/passkeys/repo.js';
import type { PostsService } from '../modules/posts/service.js';
import { ProviderAccountsRepo } from '../modules/providers/repo.js';
import { SecondFactorRepo } from '../modules/second-factor/repo.js';
import { SecurityEventsRepo } from '../modules/security-events/repo.js';
import { TokensRepo } from '../modules/tokens/repo.js';
import { UsersRepo } from '../modules/users/repo.js';
import { UserSearchCursorCodec } from '../modules/users/search-cursor.js';
import { UserSearchRepo } from '../modules/users/search-repo.js';
import type { UsersService } from '../modules/users/service.js';
import type { FactoryArgs } from './deps.js';

/**
 * What the console's user services are made from: the built services they share with the app and the
 * operator commands (by name), and where access records go (the access records service).
 */
export interface ConsoleUserParts extends FactoryArgs {
  users: UsersService;
  posts: PostsService;
  activity: SecurityActivity;
  verification: EmailVerificationService;
  scheduledDeletions: ScheduledDeletions;
  secondFactorReset: SecondFactorReset;
  recorder: AccessRecorder;
}

/** The console's users: the search and its export, a user's page, and the support actions. */
export interface ConsoleUserServices {
  userSearch: ConsoleUserSearch;
  userOverview: ConsoleUserOverview;
  userActions: ConsoleUserActions;
}

/** The console's user services, built by buildServices beside the services they call. */
export function buildConsoleUsers(parts: ConsoleUserParts): ConsoleUserServices {
  const db = parts.deps.database.db;
  const gate = new StaffGate(parts.recorder);
  const usersRepo = new UsersRepo(db);
  const tokensRepo = new TokensRepo(db);
  const searchRepo = new UserSearchRepo(db);
  const lists = new OverviewRepo(db);
  const providers = new ProviderAccountsRepo(db);
  const passkeys = new PasskeysRepo(db);
  const secondFactor = new SecondFactorRepo(db);
  const securityEvents = new SecurityEventsRepo(db);
  const consentHistory = new ConsentHistoryRepo(db);
  const identity = new IdentityRepo(db);
  const { users } = parts;
  return {
    userSearch: new ConsoleUserSearch(
      searchRepo,
      new UserSearchCursorCodec(() => searchRepo.cursorKey()),
      gate,
    ),
    userOverview: new ConsoleUserOverview(
      {
        user: (id) => usersRepo.findById(id),
        providerLinks: (id) => providers.linksOf(id),
        passkeys: (id) => passkeys.summariesFor(id),
        secondFactorOn: (id) => secondFactor.isEnabled(id),
        securityEvents: (id, limit) => securityEvents.page(id, undefined, limit),
        consentRecords: (id, limit) => consentHistory.page(id, undefined, limit),
        identity: (id) => identity.find(id),
        sessions: (id, limit) => lists.sessions(id, limit),
        devices: (id, limit) => lists.devices(id, limit),
        accountEvents: (id, limit) => lists.accountEvents(id, limit),
      },
      gate,
    ),
    userActions: new ConsoleUserActions({
      db,
      usersRepo,
      taken: {
        email: (value, except) => users.taken('email', value, except),
        username: (value, except) => users.taken('username', value, except),
        slug: (value, except) => users.taken('slug', value, except),
      },
      tokens: tokensRepo,
      secondFactorReset: parts.secondFactorReset,
      verification: parts.verification,
      scheduledDeletions: parts.scheduledDeletions,
      deletionCancel: new OperatorDeletionCancel({
        db,
        usersRepo,
        posts: parts.posts,
        oneTimeTokens: new OneTimeTokensRepo(db),
        activity: parts.activity,
      }),
      gate,
    }),
  };
}

/**
 * The console's entries in the access records' own shape and vocabulary: the operator commands and the
 * monthly review name what is done to one user `user.…` and a field shown `user.unmask.<field>` (the review
 * counts those), while the console's services say `users.…`. Searches and exports, which touch no one user,
 * keep `users.search` and `users.export`. The chain's format is the records' own; only names are mapped.
 */
export function consoleRecordEntry(entry: AccessEntry): AccessRecordEntry {
  let action = entry.action;
  if (entry.subjectId !== null && action.startsWith('users.'))
    action = `user.${action.slice('users.'.length)}`;
  const field = entry.detail?.field;
  if (action === 'user.reveal') action = typeof field === 'string' ? `user.unmask.${field}` : 'user.unmask';
  return {
    actor: { kind: 'staff', staffId: entry.actor.id },
    clientAddress: entry.clientAddress,
    subjectId: entry.subjectId,
    action,
    reason: entry.reason,
    outcome: entry.outcome,
    detail: entry.detail,
  };
}

/** The access records service as the console's gate writes to it. */
export function accessRecorder(records: AccessRecords): AccessRecorder {
  return { record: async (entry) => void (await records.append(consoleRecordEntry(entry))) };
}
