import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ZipFile } from 'yazl';
import type { PostImage, PostRow, UserRow } from '../../db/schema.js';
import { iso } from '../../lib/time.js';
import type { MediaStorage } from '../../storage/media-storage.js';
import type { ExportList } from './lists.js';
import { keysetPages } from './paging.js';
import type { AccountSection } from './sections.js';

/**
 * What the archive reads: the account sections, the history lists, and the user's posts and likes, a page at
 * a time.
 */
export interface ArchiveSources {
  sections: readonly AccountSection[];
  lists: readonly ExportList[];
  postsPage(userId: string, afterId: string | undefined, limit: number): Promise<PostRow[]>;
  likesPage(
    userId: string,
    afterPostId: string | undefined,
    limit: number,
  ): Promise<{ post_id: string; created_at: Date }[]>;
  media: Pick<MediaStorage, 'read'>;
}

/** A stored image's place in the zip: its folder and the file name of its key. */
function imagePath(folder: string, key: string): string {
  return `${folder}/${key.slice(key.lastIndexOf('/') + 1)}`;
}

function imageKeys(image: PostImage | null): string[] {
  return image?.keys ?? [];
}

/** A JSON array written one element at a time, from pages read one after another. */
async function* jsonArray<T>(pages: AsyncIterable<T[]>, toJson: (row: T) => unknown): AsyncGenerator<string> {
  let first = true;
  yield '[';
  for await (const page of pages) {
    for (const row of page) {
      yield `${first ? '' : ','}\n  ${JSON.stringify(toJson(row))}`;
      first = false;
    }
  }
  yield first ? ']\n' : '\n]\n';
}

/**
 * Writes the user's export to `file` as one zip, streamed (yazl): `account.json` (the sections), the
 * history lists (`consents.json`, `security_events.json`, …), `posts.json`, `likes.json`, and the image files under `images/profile/` and `images/posts/<post id>/`. Each
 * image is opened only when the zip reaches it, so one file is read at a time.
 */
export async function writeArchive(sources: ArchiveSources, user: UserRow, file: string): Promise<void> {
  const zip = new ZipFile();
  // Any source failing (the database, a media read, the zip itself) stops the write and fails the build.
  let reject: (error: Error) => void = () => {};
  const failed = new Promise<never>((_, rejectWith) => {
    reject = rejectWith;
  });
  failed.catch(() => {});
  const output = zip.outputStream as Readable;
  const fail = (error: Error) => {
    output.destroy(error);
    reject(error);
  };
  zip.on('error', fail);
  const written = pipeline(output, createWriteStream(file, { flags: 'wx' }));
  written.catch(() => {});
  try {
    await Promise.race([addEntries(zip, sources, user, fail), failed]);
  } catch (error) {
    fail(error as Error);
    throw error;
  }
  zip.end();
  await Promise.race([written, failed]);
}

/** Adds every entry; resolves once the last one is added (the posts' images follow their page). */
async function addEntries(
  zip: ZipFile,
  sources: ArchiveSources,
  user: UserRow,
  fail: (error: Error) => void,
): Promise<void> {
  const addImage = (path: string, key: string) =>
    zip.addReadStreamLazy(path, (callback) => {
      sources.media.read(key).then(
        // A file removed meanwhile (the picture replaced during the export) is left empty.
        (stream) => callback(null, stream ?? Readable.from([])),
        (error: Error) => callback(error, Readable.from([])),
      );
    });

  const account: Record<string, unknown> = {};
  for (const section of sources.sections) account[section.name] = await section.read(user);
  zip.addBuffer(Buffer.from(`${JSON.stringify(account, null, 2)}\n`), 'account.json');
  for (const list of sources.lists) {
    const rows = Readable.from(jsonArray(list.rows(user), (row) => row));
    rows.on('error', fail);
    zip.addReadStream(rows, list.file);
  }
  for (const key of imageKeys(user.profile_picture)) addImage(imagePath('images/profile', key), key);

  const likes = Readable.from(
    jsonArray(
      keysetPages(
        (after: string | undefined, limit) => sources.likesPage(user.id, after, limit),
        (like) => like.post_id,
      ),
      (like) => ({ post_id: like.post_id, liked_at: iso(like.created_at) }),
    ),
  );
  likes.on('error', fail);
  zip.addReadStream(likes, 'likes.json');

  // The posts' images are added as their page is written, so they follow posts.json.
  let listed: () => void = () => {};
  const postsListed = new Promise<void>((resolve) => {
    listed = resolve;
  });
  async function* postPages(): AsyncGenerator<PostRow[]> {
    for await (const page of keysetPages(
      (after: string | undefined, limit) => sources.postsPage(user.id, after, limit),
      (post) => post.id,
    )) {
      for (const post of page) {
        for (const image of post.images) {
          for (const key of imageKeys(image)) addImage(imagePath(`images/posts/${post.id}`, key), key);
        }
      }
      yield page;
    }
    listed();
  }
  const posts = Readable.from(
    jsonArray(postPages(), (post) => ({
      id: post.id,
      text: post.text,
      images: post.images.map((image) => ({
        url: image.url,
        width: image.width,
        height: image.height,
        files: imageKeys(image).map((key) => imagePath(`images/posts/${post.id}`, key)),
      })),
      like_count: post.like_count,
      created_at: iso(post.created_at),
      updated_at: iso(post.updated_at),
    })),
  );
  posts.on('error', fail);
  zip.addReadStream(posts, 'posts.json');
  await postsListed;
}
