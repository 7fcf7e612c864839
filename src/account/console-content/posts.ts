import type { UserRow } from '../../db/schema.js';
import { NotFoundError } from '../../errors.js';
import type { AuthorPostsPage, ModeratedPostView, PostModeration } from '../../modules/posts/moderation.js';
import type { PostsService } from '../../modules/posts/service.js';
import {
  type Access,
  requireReason,
  type StaffActor,
  type StaffGate,
} from '../console-users/staff-access.js';

/** What the console's posts are made of: the moderation and posts services the operator commands use too. */
export interface ConsolePostsDeps {
  /** The user an operator names (id, email or username), as the commands find one; a 404 when none is. */
  findUser(reference: string): Promise<Pick<UserRow, 'id' | 'username'>>;
  moderation: PostModeration;
  posts: Pick<PostsService, 'removeAsOperator'>;
  gate: StaffGate;
}

export interface AuthorPostsInput {
  /** The author's id, email or username. */
  author: string;
  cursor?: string | undefined;
  limit?: number | undefined;
}

export const AUTHOR_POSTS_LIMIT = { min: 1, max: 100, default: 20 } as const;

type Moderation = 'hide' | 'unhide' | 'delete';

/**
 * Posts for staff: an author's posts (hidden ones too) and one post, behind `content.read`; hiding, showing
 * again and deleting one, behind `content.write` and each with a reason. A post is its author's data: each
 * step is one access record whose subject is the author (StaffGate). A post or author that does not exist
 * touched nobody's data: a 404, unrecorded.
 */
export class ConsolePosts {
  constructor(private readonly deps: ConsolePostsDeps) {}

  async byAuthor(actor: StaffActor, input: AuthorPostsInput): Promise<AuthorPostsPage & { author: Author }> {
    const user = await this.deps.findUser(input.author);
    const access: Access = {
      permission: 'content.read',
      action: 'posts.view',
      subjectId: user.id,
      reasonRequired: false,
    };
    const limit = input.limit ?? AUTHOR_POSTS_LIMIT.default;
    const page = await this.deps.gate.run(
      actor,
      access,
      () => this.deps.moderation.byAuthor(user.id, input.cursor, limit),
      (done) => ({ posts: done.posts.length }),
    );
    return { author: { id: user.id, username: user.username }, ...page };
  }

  async post(actor: StaffActor, postId: string): Promise<ModeratedPostView> {
    const post = await this.found(postId);
    const access: Access = {
      permission: 'content.read',
      action: 'post.view',
      subjectId: post.author.id,
      reasonRequired: false,
    };
    return this.deps.gate.run(
      actor,
      access,
      async () => post,
      () => ({ post_id: post.id }),
    );
  }

  /** Hides the post from the feed and the single post (its author still finds it in a data export). */
  hide(actor: StaffActor, postId: string, reason: string | undefined) {
    return this.moderate(actor, postId, 'hide', reason);
  }

  unhide(actor: StaffActor, postId: string, reason: string | undefined) {
    return this.moderate(actor, postId, 'unhide', reason);
  }

  /** Deletes the post, its likes and image files (the operator command's `post remove`); answers it as it was. */
  remove(actor: StaffActor, postId: string, reason: string | undefined) {
    return this.moderate(actor, postId, 'delete', reason);
  }

  private async moderate(
    actor: StaffActor,
    postId: string,
    action: Moderation,
    reason: string | undefined,
  ): Promise<ModeratedPostView> {
    const post = await this.found(postId);
    const access: Access = {
      permission: 'content.write',
      action: `post.${action}`,
      subjectId: post.author.id,
      reason,
      reasonRequired: true,
    };
    const { moderation, posts } = this.deps;
    return this.deps.gate.run(
      actor,
      access,
      async () => {
        const done =
          action === 'hide'
            ? await moderation.hide(post.id, requireReason(reason))
            : action === 'unhide'
              ? await moderation.unhide(post.id)
              : await posts.removeAsOperator(post.id);
        if (!done) throw new NotFoundError('post');
        return action === 'delete' ? post : await this.found(post.id);
      },
      () => ({ post_id: post.id }),
    );
  }

  private async found(postId: string): Promise<ModeratedPostView> {
    const post = await this.deps.moderation.find(postId);
    if (!post) throw new NotFoundError('post');
    return post;
  }
}

interface Author {
  id: string;
  username: string;
}
