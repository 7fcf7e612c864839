import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError } from '../../src/errors.js';
import { newId } from '../../src/lib/ids.js';
import { UsersRepo } from '../../src/modules/users/repo.js';
import { UsersService } from '../../src/modules/users/service.js';
import { backends, createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { unique } from '../helpers/factories.js';

describe.each(backends)('%s: UsersService', (backend) => {
  let database: TestDatabase;
  let repo: UsersRepo;

  beforeAll(async () => {
    database = await createTestDatabase(backend);
    repo = new UsersRepo(database.handle.db);
  });

  afterAll(async () => {
    await database?.drop();
  });

  async function insertUser() {
    const id = unique();
    return repo.insert({
      id: newId(),
      email: `Svc${id}@Example.com`,
      username: `svc${id}`,
      slug: `svc-${id}`,
      gender: 0,
      password_hash: null,
    });
  }

  it('gets a user’s own view by id, and NotFound for an unknown id', async () => {
    const users = new UsersService(repo);
    const row = await insertUser();
    expect(await users.get(row.id)).toEqual(
      expect.objectContaining({ id: row.id, email: row.email, has_password: false }),
    );
    await expect(users.get(newId())).rejects.toBeInstanceOf(NotFoundError);
  });

  it('takes the providers of the user object from the linked-providers source once it is plugged in', async () => {
    const row = await insertUser();
    expect((await new UsersService(repo).view(row)).providers).toEqual([]);
    const users = new UsersService(repo, {
      namesFor: async (userId) => (userId === row.id ? ['alpha', 'gamma'] : []),
    });
    expect((await users.view(row)).providers).toEqual(['alpha', 'gamma']);
  });

  it('answers uniqueness case-insensitively and can ignore one user', async () => {
    const users = new UsersService(repo);
    const row = await insertUser();
    expect(await users.taken('email', row.email.toLowerCase())).toBe(true);
    expect(await users.taken('username', row.username.toUpperCase())).toBe(true);
    expect(await users.taken('slug', row.slug)).toBe(true);
    expect(await users.taken('email', row.email, row.id)).toBe(false);
    expect(await users.taken('email', `other${unique()}@example.com`)).toBe(false);
  });

  it('finds by email case-insensitively and lists which slugs are free in one call', async () => {
    const row = await insertUser();
    expect((await repo.findByEmail(row.email.toUpperCase()))?.id).toBe(row.id);
    expect(await repo.findByEmail(`nobody${unique()}@example.com`)).toBeUndefined();
    const free = `free-${unique()}`;
    expect(await repo.freeSlugs([row.slug.toUpperCase(), free, row.slug])).toEqual([free]);
    expect(await repo.freeSlugs([])).toEqual([]);
  });
});
