import { primaryReads, type RoutedReads } from '../../db/read-routing.js';
import type { PostImage, UserRow } from '../../db/schema.js';
import { type Executor, writeTransaction } from '../../db/transaction.js';
import type { OutcomeCheck } from '../../db/write-outcome.js';
import { CommitFailedError, ForbiddenError, NotFoundError } from '../../errors.js';
import type { AuthContext } from '../../http/auth-context.js';
import type { Static } from '../../http/response-schema.js';
import { newId } from '../../lib/ids.js';
import { type AnswerRecorder, IdempotentRequest, type IdempotentWrites } from '../idempotency/key.js';
import type { ValidatedImage } from '../images/probe.js';
import type { FeedCursor, FeedCursorCodec, FeedOrder } from './cursor.js';
import type { PostsRepo } from './repo.js';
import type { FeedRow } from './rows.js';
import type { feedPageShape } from './view.js';
import { type PostView, postView } from './view.js';

/** Post images live in their own storage folder, apart from profile pictures. */
export const POST_IMAGES_FOLDER = 'post-images';

/** Ids are UUIDs: anything else names no post (a 404, never a database error). */
const POST_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface NewPostInput {
  text: string;
  images: ValidatedImage[];
}

export interface FeedRequest {
  order: FeedOrder;
  limit: number;
  cursor: FeedCursor | undefined;
}

export type FeedPage = Static<typeof feedPageShape>;

/**
 * Where the images of posts are decoded, re-encoded and stored, and removed again: the images module's
 * service, handed in by the composition root.
 */
export interface PostImageStore {
  /** Renders and stores one validated image under `folder`; the stored files come back. */
  store(
    field: string,
    upload: ValidatedImage['file'],
    probe: ValidatedImage['probe'],
    folder: string,
  ): Promise<PostImage>;
  /** Removes the files of an image, best effort: a failure is reported by the store, never thrown. */
  removePicture(picture: PostImage): Promise<void>;
}

/** What PostsService is built from. */
export interface PostsServiceDeps {
  db: Executor;
  postsRepo: PostsRepo;
  images: PostImageStore;
  cursors: FeedCursorCodec;
  /** Where the feed and single-post reads run; the primary unless given. */
  reads?: RoutedReads;
  /** Idempotency-Key on create: the idempotency module's service, handed in. */
  idempotency?: IdempotentWrites;
  /** Whether a create whose answer was lost committed (none on the embedded database). */
  outcomes?: OutcomeCheck;
}

/** Posts, their likes and the feed. Files are written before a transaction and removed after its outcome. */
export class PostsService {
  /** Where the feed and single-post reads run: a replica unless the viewer just wrote (db/read-routing.ts). */
  private readonly reads: RoutedReads;

  constructor(private readonly deps: PostsServiceDeps) {
    this.reads = deps.reads ?? primaryReads(deps.db);
  }

  /** For the orphan media sweep: which of these keys posts still use. */
  referencedMediaKeys(keys: readonly string[]): Promise<string[]> {
    return this.deps.postsRepo.referencedMediaKeys(keys);
  }

  /**
   * Stores every image (one after the other: each decode may hold a 40-megapixel bitmap), then inserts the
   * post. Whatever fails — an image that cannot be decoded, the storage, the transaction — no file stays.
   */
  async create(auth: AuthContext, input: NewPostInput, idempotencyKey?: string): Promise<PostView> {
    if (idempotencyKey === undefined || this.deps.idempotency === undefined)
      return this.createOnce(auth, input);
    // Scoped by the signed-in user: another user's identical key is another key.
    const request = new IdempotentRequest('post/create', auth.user.id, idempotencyKey, input);
    return this.deps.idempotency.once(request, (record) => this.createOnce(auth, input, record));
  }

  private async createOnce(
    auth: AuthContext,
    input: NewPostInput,
    record?: AnswerRecorder<PostView>,
  ): Promise<PostView> {
    const author = auth.user;
    const stored: PostImage[] = [];
    const id = newId();
    try {
      for (const image of input.images) {
        stored.push(await this.deps.images.store('images', image.file, image.probe, POST_IMAGES_FOLDER));
      }
      // The post's id is made here: when the COMMIT's answer is lost, its row says whether it committed.
      const lookup = {
        check: this.deps.outcomes,
        find: (db: Executor) => this.deps.postsRepo.with(db).exists(id),
      };
      return await writeTransaction(
        this.deps.db,
        async (trx) => {
          const row = await this.deps.postsRepo
            .with(trx)
            .insert({ id, userId: author.id, text: input.text, images: stored });
          const view = postView({ ...row, author, liked_by_me: false });
          await record?.(trx, author.id, view);
          return view;
        },
        undefined,
        lookup,
      );
    } catch (error) {
      await this.removeImageFiles(stored);
      throw error;
    }
  }

  async get(auth: AuthContext | undefined, postId: string): Promise<PostView> {
    const viewerId = auth?.user.id;
    const row = POST_ID.test(postId)
      ? await this.reads.read(viewerId, (db) => this.deps.postsRepo.with(db).find(postId, viewerId))
      : undefined;
    if (!row) throw new NotFoundError('post');
    return postView(row);
  }

  /**
   * Likes are rows of post_likes (one per user and post, by primary key); like_count moves by exactly the rows
   * this transaction inserted or deleted, in the same transaction, so concurrent likes and unlikes always sum
   * to the number of rows. A recount under a row lock would be as correct but cost O(likes) per like.
   */
  like(auth: AuthContext, postId: string): Promise<PostView> {
    const viewer = auth.user;
    return this.changeLike(viewer, postId, async (repo) => {
      if (await repo.addLike(postId, viewer.id)) await repo.adjustLikeCount(postId, 1);
    });
  }

  unlike(auth: AuthContext, postId: string): Promise<PostView> {
    const viewer = auth.user;
    return this.changeLike(viewer, postId, async (repo) => {
      if (await repo.removeLike(postId, viewer.id)) await repo.adjustLikeCount(postId, -1);
    });
  }

  private async changeLike(
    viewer: UserRow,
    postId: string,
    change: (repo: PostsRepo) => Promise<void>,
  ): Promise<PostView> {
    if (!POST_ID.test(postId)) throw new NotFoundError('post');
    try {
      const row = await writeTransaction(this.deps.db, async (trx) => {
        const repo = this.deps.postsRepo.with(trx);
        await change(repo);
        const post = await repo.find(postId, viewer.id);
        if (!post) throw new NotFoundError('post');
        return post;
      });
      return postView(row);
    } catch (error) {
      // The post was deleted between the like's existence check and its foreign-key check.
      if (error instanceof CommitFailedError && (error.cause as { code?: unknown })?.code === '23503')
        throw new NotFoundError('post');
      throw error;
    }
  }

  /** Deletes the user's own post: someone else's is a 403, a missing one a 404. Files go after commit. */
  async delete(auth: AuthContext, postId: string): Promise<void> {
    const userId = auth.user.id;
    if (!POST_ID.test(postId)) throw new NotFoundError('post');
    const images = await writeTransaction(this.deps.db, async (trx) => {
      const repo = this.deps.postsRepo.with(trx);
      const post = await repo.lockForDelete(postId);
      if (!post) throw new NotFoundError('post');
      if (post.user_id !== userId) throw new ForbiddenError();
      return (await repo.delete(postId)) ?? [];
    });
    await this.removeImageFiles(images);
  }

  /** For the operator CLI: removes any post. False when there was no such post. Files go after commit. */
  async removeAsOperator(postId: string): Promise<boolean> {
    if (!POST_ID.test(postId)) return false;
    const images = await writeTransaction(this.deps.db, (trx) =>
      this.deps.postsRepo.with(trx).delete(postId),
    );
    if (images === undefined) return false;
    await this.removeImageFiles(images);
    return true;
  }

  /**
   * Deletes every post of a user inside the caller's transaction (account deletion). Returns their images:
   * pass them to `removeImageFiles` once that transaction has committed, never before.
   */
  deleteAllOfUser(trx: Executor, userId: string): Promise<PostImage[]> {
    return this.deps.postsRepo.with(trx).deleteByUser(userId);
  }

  /**
   * Hides every post of a user from the feed and the single post inside the caller's transaction (the
   * account's deletion is scheduled), or shows them again (it was taken back).
   */
  setAuthorHidden(trx: Executor, userId: string, hidden: boolean): Promise<void> {
    return this.deps.postsRepo.with(trx).setAuthorHidden(userId, hidden);
  }

  /**
   * Takes back every like of a user inside the caller's transaction (account deletion), so the liked posts'
   * like_count and hot_score stay equal to their likes.
   */
  unlikeAllOfUser(trx: Executor, userId: string): Promise<number> {
    return this.deps.postsRepo.with(trx).unlikeAllOf(userId);
  }

  /** Best effort, like every file removal: a failure is reported with the keys (see PostImageStore). */
  async removeImageFiles(images: readonly PostImage[]): Promise<void> {
    await Promise.all(images.map((image) => this.deps.images.removePicture(image)));
  }

  /**
   * One page of the feed, in one query (authors and the viewer's likes joined in). It reads one row more than
   * the page holds: that row only tells whether there is a next page, so `next_cursor` is null exactly on the
   * last page.
   */
  async feed(auth: AuthContext | undefined, request: FeedRequest): Promise<FeedPage> {
    const viewerId = auth?.user.id;
    const rows = await this.reads.read(viewerId, (db) =>
      this.deps.postsRepo.with(db).page({
        order: request.order,
        limit: request.limit + 1,
        after: request.cursor,
        viewerId,
      }),
    );
    const page = rows.slice(0, request.limit);
    const last = page.at(-1);
    const next =
      rows.length > request.limit && last !== undefined
        ? await this.deps.cursors.encode(this.cursorAfter(request, last, page))
        : null;
    return { posts: page.map(postView), next_cursor: next };
  }

  private cursorAfter(request: FeedRequest, last: FeedRow, rows: FeedRow[]): FeedCursor {
    if (request.order === 'new') return { order: 'new', createdAt: last.created_at, id: last.id };
    // The walk's bound is set by its first page and carried by every cursor after it.
    const bound = request.cursor?.order === 'hot' ? request.cursor.bound : (rows[0] as FeedRow).read_bound;
    return { order: 'hot', score: last.hot_score, id: last.id, bound };
  }
}
