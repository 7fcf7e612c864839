import { SecondFactorReset } from '../account/second-factor/operator-reset.js';
import type { SecurityActivity } from '../account/security-activity/recorder.js';
import { AccessRecordsRepo } from '../modules/access-records/repo.js';
import { AccessReview } from '../modules/access-records/review.js';
import { AccessReviewRepo } from '../modules/access-records/review-repo.js';
import { AccessRecords } from '../modules/access-records/service.js';
import { ConsentHistory } from '../modules/consents/history.js';
import { ConsentHistoryRepo } from '../modules/consents/history-repo.js';
import type { SecondFactorRepo } from '../modules/second-factor/repo.js';
import { UserImportRepo } from '../modules/users/import-repo.js';
import { UserImportService } from '../modules/users/import-service.js';
import { UserListCursorCodec } from '../modules/users/list-cursor.js';
import { UserListRepo } from '../modules/users/list-repo.js';
import { UserListService } from '../modules/users/list-service.js';
import type { FactoryArgs } from './deps.js';

/** What the operators' own tools are made from. */
export interface OperatorToolParts extends FactoryArgs {
  secondFactorRepo: SecondFactorRepo;
  activity: SecurityActivity;
}

/** What only the operator commands use (`accounts user import`, `user list`, `consent history`, `second-factor reset`). */
export interface OperatorToolServices {
  userImport: UserImportService;
  userList: UserListService;
  consentHistory: ConsentHistory;
  secondFactorReset: SecondFactorReset;
  /** The access records (접속기록): appended by the console, the admin API and the operator commands. */
  accessRecords: AccessRecords;
  /** Their monthly review (`accounts audit review`, the console's review page). */
  accessReview: AccessReview;
}

/** The user list, its cursors signed with the key of migration 0035. */
function userList(repo: UserListRepo): UserListService {
  return new UserListService(repo, new UserListCursorCodec(() => repo.cursorKey()));
}

/** The operators' own tools, beside the services they share with the server. */
export function buildOperatorTools(parts: OperatorToolParts): OperatorToolServices {
  const db = parts.deps.database.db;
  return {
    userImport: new UserImportService(db, new UserImportRepo(db)),
    userList: userList(new UserListRepo(db)),
    consentHistory: new ConsentHistory(new ConsentHistoryRepo(db)),
    secondFactorReset: new SecondFactorReset(db, parts.secondFactorRepo, parts.activity),
    accessRecords: new AccessRecords(db, new AccessRecordsRepo(db)),
    accessReview: new AccessReview(new AccessReviewRepo(db), parts.config.accessRecords),
  };
}
