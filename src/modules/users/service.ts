import type { UserRow, UserWithProviders } from '../../db/schema.js';
import type { Column } from '../../db/users-indexes.js';
import { NotFoundError } from '../../errors.js';
import type { UsersRepo } from './repo.js';
import { type UserView, userView } from './view.js';

/** Where a user's linked identity providers come from (the providers module, once configured). */
export interface LinkedProviders {
  namesFor(userId: string): Promise<string[]>;
}

const NO_PROVIDERS: LinkedProviders = { namesFor: async () => [] };

export class UsersService {
  constructor(
    private readonly users: UsersRepo,
    private linkedProviders: LinkedProviders = NO_PROVIDERS,
  ) {}

  /** Lets the providers module, built after this one, supply the `providers` of the user object. */
  useLinkedProviders(source: LinkedProviders): void {
    this.linkedProviders = source;
  }

  /** True when some user other than `exceptUserId` holds `value` in `column` (case-insensitively). */
  taken(column: Column, value: string, exceptUserId?: string): Promise<boolean> {
    return this.users.taken(column, value, exceptUserId);
  }

  /** The account that holds this email (case-insensitively), with its linked providers. */
  accountByEmail(email: string): Promise<UserWithProviders | undefined> {
    return this.users.findWithProvidersByEmail(email);
  }

  /** Which of these media keys a profile picture still uses (for the orphan media sweep). */
  referencedMediaKeys(keys: readonly string[]): Promise<string[]> {
    return this.users.referencedMediaKeys(keys);
  }

  /** `linked`: the user's provider names when the caller already has them (read with the token). */
  async view(row: UserRow, linked?: readonly string[]): Promise<UserView> {
    return userView(row, linked ? [...linked] : await this.linkedProviders.namesFor(row.id));
  }

  async get(userId: string): Promise<UserView> {
    const row = await this.users.findById(userId);
    if (!row) throw new NotFoundError('user');
    return this.view(row);
  }
}
