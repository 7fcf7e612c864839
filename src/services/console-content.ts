import { ConsoleConsents } from '../account/console-content/consents.js';
import { ConsolePosts } from '../account/console-content/posts.js';
import { type AccessRecorder, StaffGate } from '../account/console-users/staff-access.js';
import { ConsentsRepo } from '../modules/consents/repo.js';
import type { ConsentsService } from '../modules/consents/service.js';
import { ConsentVersionsRepo } from '../modules/consents/versions-repo.js';
import { PostModeration } from '../modules/posts/moderation.js';
import { PostModerationRepo } from '../modules/posts/moderation-repo.js';
import type { PostsService } from '../modules/posts/service.js';
import type { UserOperationsService } from '../modules/users/operator-service.js';
import type { FactoryArgs } from './deps.js';

/** What the console's content is made from: the posts and consents services the app and the commands use. */
export interface ConsoleContentParts extends FactoryArgs {
  posts: PostsService;
  consents: ConsentsService;
  operations: UserOperationsService;
  recorder: AccessRecorder;
}

/** The console's posts and consent documents, and the moderation the operator commands share. */
export interface ConsoleContentServices {
  postModeration: PostModeration;
  consolePosts: ConsolePosts;
  consoleConsents: ConsoleConsents;
}

/** Built by buildServices beside the services they call. */
export function buildConsoleContent({
  deps,
  posts,
  consents,
  operations,
  recorder,
}: ConsoleContentParts): ConsoleContentServices {
  const db = deps.database.db;
  const consentsRepo = new ConsentsRepo(db);
  const postModeration = new PostModeration(new PostModerationRepo(db));
  return {
    postModeration,
    consolePosts: new ConsolePosts({
      findUser: (reference) => operations.find(reference),
      moderation: postModeration,
      posts,
      gate: new StaffGate(recorder),
    }),
    consoleConsents: new ConsoleConsents({
      consents,
      documentVersion: (key, version) => consentsRepo.documentVersion(key, version),
      versions: new ConsentVersionsRepo(db),
    }),
  };
}
