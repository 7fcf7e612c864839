import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import sharp from 'sharp';
import { expect } from 'vitest';
import type { Database } from '../../src/db/schema.js';
import { type RegisteredUser, registerUser, unique } from './factories.js';
import { expectOk, postMultipart } from './http.js';

export interface Picture {
  url: string;
  width: number;
  height: number;
  thumbnails: { '256': string; '64': string };
}

/** Every file under a directory, relative to it (empty when the directory does not exist). */
export async function filesUnder(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    return entries
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

/** The three URLs of a picture: full size, 256 and 64. */
export function pictureUrls(picture: Picture): string[] {
  return [picture.url, picture.thumbnails['256'], picture.thumbnails['64']];
}

export function registerFields(): Record<string, string> {
  const id = unique();
  return {
    type: 'email',
    email: `pic${id}@example.com`,
    username: `pic${id}`,
    gender: '0',
    user_agreement: 'on',
    password: `Sturdy-Passphrase-${id}`,
  };
}

/** Registers through multipart with a profile picture, as the app's sign-up screen does. */
export function registerWithPicture(
  app: FastifyInstance,
  data: Buffer,
  file: { filename?: string; contentType?: string } = {},
  fields: Record<string, string> = registerFields(),
): Promise<LightMyRequestResponse> {
  return postMultipart(app, '/v1/auth/register', fields, {
    profile_picture: {
      filename: file.filename ?? 'me.jpg',
      contentType: file.contentType ?? 'image/jpeg',
      data,
    },
  });
}

export function updatePicture(
  app: FastifyInstance,
  token: string | undefined,
  data: Buffer,
  file: { filename?: string; contentType?: string } = {},
): Promise<LightMyRequestResponse> {
  return postMultipart(
    app,
    '/v1/user/profile-image/update',
    {},
    {
      profile_picture: {
        filename: file.filename ?? 'me.png',
        contentType: file.contentType ?? 'image/png',
        data,
      },
    },
    token ? { authorization: `Bearer ${token}` } : {},
  );
}

export async function userWithPicture(
  app: FastifyInstance,
  data: Buffer,
): Promise<RegisteredUser & { picture: Picture }> {
  const user = await registerUser(app);
  const picture = expectOk<{ user: { profile_picture: Picture } }>(await updatePicture(app, user.token, data))
    .user.profile_picture;
  return { ...user, picture };
}

/**
 * Makes the COMMIT of a transaction fail when it wrote a row of `table` (an insert, or a delete) whose `column`
 * starts with `prefix`: a deferred constraint trigger, so every statement succeeds and only the commit is
 * refused, as a real commit-time failure would be. Returns a function that removes the trigger again.
 */
export async function failCommitOf(
  db: Kysely<Database>,
  target: { table: 'posts' | 'users'; event: 'INSERT' | 'DELETE'; column: string; prefix: string },
): Promise<() => Promise<void>> {
  const { table, event, column, prefix } = target;
  const fn = `fail_${table}_${event.toLowerCase()}_${prefix.toLowerCase()}`;
  const row = event === 'DELETE' ? 'OLD' : 'NEW';
  await sql
    .raw(
      `CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF ${row}.${column} LIKE '${prefix}%' THEN RAISE EXCEPTION 'injected failure at commit'; END IF;
         RETURN ${row};
       END $$`,
    )
    .execute(db);
  await sql
    .raw(
      `CREATE CONSTRAINT TRIGGER ${fn} AFTER ${event} ON ${table} DEFERRABLE INITIALLY DEFERRED
       FOR EACH ROW EXECUTE FUNCTION ${fn}()`,
    )
    .execute(db);
  return async () => {
    await sql.raw(`DROP TRIGGER ${fn} ON ${table}`).execute(db);
    await sql.raw(`DROP FUNCTION ${fn}()`).execute(db);
  };
}

/**
 * Makes the next write of a user whose username starts with `prefix` fail inside its transaction (a trigger
 * raising an error), so tests can check that nothing of a failed write is left behind.
 */
export async function failWritesOfUsernames(db: Kysely<Database>, prefix: string): Promise<void> {
  const fn = `fail_${prefix}`;
  await sql
    .raw(
      `CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
       BEGIN
         IF NEW.username LIKE '${prefix}%' THEN RAISE EXCEPTION 'injected failure'; END IF;
         RETURN NEW;
       END $$`,
    )
    .execute(db);
  await sql
    .raw(`CREATE TRIGGER ${fn} BEFORE INSERT OR UPDATE ON users FOR EACH ROW EXECUTE FUNCTION ${fn}()`)
    .execute(db);
}

/** Fetches a picture's three files through the app and decodes them. */
export async function servedPicture(app: FastifyInstance, picture: Picture) {
  return Promise.all(
    pictureUrls(picture).map(async (url) => {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      const body = res.rawPayload;
      return { res, body, metadata: await sharp(body).metadata() };
    }),
  );
}
