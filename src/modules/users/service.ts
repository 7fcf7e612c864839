import type { RoutedReads } from '../../db/read-routing.js';
import type { UserRow, UserWithProviders } from '../../db/schema.js';
import type { Executor } from '../../db/transaction.js';
import type { Column } from '../../db/users-indexes.js';
import { NotFoundError } from '../../errors.js';
import type { UsersRepo } from './repo.js';
import { type UserView, userView } from './view.js';

/** Where a user's linked identity providers come from (the provider links, read by the providers module). */
export interface LinkedProviders {
  namesFor(userId: string): Promise<string[]>;
}

const NO_PROVIDERS: LinkedProviders = { namesFor: async () => [] };

export class UsersService {
  constructor(
    private readonly users: UsersRepo,
    /** The `providers` of the user object; none without a source. */
    private readonly linkedProviders: LinkedProviders = NO_PROVIDERS,
    /** Where availability checks read (a replica when one is healthy); the repo's database without. */
    private readonly reads?: RoutedReads,
  ) {}

  /** True when some user other than `exceptUserId` holds `value` in `column` (case-insensitively). */
  taken(column: Column, value: string, exceptUserId?: string): Promise<boolean> {
    return this.users.taken(column, value, exceptUserId);
  }

  /**
   * The availability check of validate/*: like `taken`, but read where routed reads go. Its answer is
   * advisory either way (someone may take the value before the sign-up); the unique indexes on the primary
   * decide at the write.
   */
  takenForAvailability(column: Column, value: string): Promise<boolean> {
    if (this.reads === undefined) return this.users.taken(column, value);
    return this.reads.read(undefined, (db) => this.users.with(db).taken(column, value));
  }

  /** The account that holds this email (case-insensitively), with its linked providers. */
  accountByEmail(email: string): Promise<UserWithProviders | undefined> {
    return this.users.findWithProvidersByEmail(email);
  }

  /** Marks the address verified, inside the caller's transaction (email verification, for one). */
  async markEmailVerified(trx: Executor, userId: string): Promise<UserRow> {
    return this.users.with(trx).update(userId, { email_verified: true });
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
