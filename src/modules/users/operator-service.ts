import type { UserRow } from '../../db/schema.js';
import { NotFoundError } from '../../errors.js';
import { iso } from '../../lib/time.js';
import type { UsersRepo } from './repo.js';
import type { UsersService } from './service.js';
import type { UserView } from './view.js';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A user as an operator sees them: the owner's view plus whether the account is disabled, and when it is
 * erased if its deletion is scheduled.
 */
export type OperatorUserView = UserView & {
  disabled_at: string | null;
  deletion_scheduled_for: string | null;
  /** When a carrier identity verification last confirmed the person. */
  identity_verified_at: string | null;
  /** A child's legal guardian's consent: pending, granted, or null when none is needed. */
  guardian_consent: UserRow['guardian_consent'];
};

/** One line of a user list. */
export interface UserSummary {
  id: string;
  email: string;
  username: string;
  disabled_at: string | null;
}

function userSummary(row: UserRow): UserSummary {
  return {
    id: row.id,
    email: row.email,
    username: row.username,
    disabled_at: row.disabled_at === null ? null : iso(row.disabled_at),
  };
}

/**
 * What operators do to accounts from the command line: find one by id, email or username, disable or
 * enable it, mark it inspirer. (HTTP never reaches these.)
 */
export class UserOperationsService {
  constructor(
    private readonly users: UsersRepo,
    private readonly views: UsersService,
  ) {}

  /**
   * The user named by an id, an email or a username (case-insensitively). An id-shaped string is tried as a
   * username too, since a username may look like one.
   */
  async find(reference: string): Promise<UserRow> {
    const named = reference.trim();
    let row = UUID_PATTERN.test(named) ? await this.users.findById(named) : undefined;
    if (!row && named.includes('@')) row = await this.users.findByEmail(named);
    if (!row && !named.includes('@')) row = await this.users.findByUsername(named.normalize('NFC'));
    if (!row) throw new NotFoundError(`user "${reference}"`);
    return row;
  }

  async view(row: UserRow): Promise<OperatorUserView> {
    return {
      ...(await this.views.view(row)),
      disabled_at: row.disabled_at === null ? null : iso(row.disabled_at),
      deletion_scheduled_for: row.deletion_due_at === null ? null : iso(row.deletion_due_at),
      identity_verified_at: row.identity_verified_at === null ? null : iso(row.identity_verified_at),
      guardian_consent: row.guardian_consent,
    };
  }

  async show(reference: string): Promise<OperatorUserView> {
    return this.view(await this.find(reference));
  }

  /**
   * A disabled user cannot sign in by any method, and every token of theirs is refused from the next
   * request on (the token lookup skips disabled owners). The tokens are kept: enabling restores them.
   */
  setDisabled(reference: string, disabled: boolean): Promise<OperatorUserView> {
    return this.change(reference, (id) => this.users.setDisabled(id, disabled));
  }

  /** Marks or unmarks an inspirer; the sampling pool follows (migration 0005's trigger). */
  setInspirer(reference: string, inspirer: boolean): Promise<OperatorUserView> {
    return this.change(reference, (id) => this.users.setInspirer(id, inspirer));
  }

  /** One query for the whole list (no per-user lookup of providers). */
  async listInspirers(): Promise<UserSummary[]> {
    return (await this.users.listInspirers()).map(userSummary);
  }

  /** A page of the inspirers by username: at most `limit`, after the username `after`. */
  async inspirerPage(after: string | undefined, limit: number): Promise<UserSummary[]> {
    return (await this.users.listInspirers({ after, limit })).map(userSummary);
  }

  private async change(
    reference: string,
    update: (id: string) => Promise<UserRow | undefined>,
  ): Promise<OperatorUserView> {
    const found = await this.find(reference);
    const row = await update(found.id);
    if (!row) throw new NotFoundError(`user "${reference}"`);
    return this.view(row);
  }
}
