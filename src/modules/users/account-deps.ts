import type { Executor } from '../../db/transaction.js';
import type { PasswordHasher } from '../../lib/passwords.js';
import type { ImagesService } from '../images/service.js';
import type { TokensService } from '../tokens/service.js';
import type { UsersRepo } from './repo.js';
import type { UsersService } from './service.js';

/**
 * What the services that write a user's account (sign-up and login, the profile) are built from: one bag, so the
 * two stay in step and a test builds them from the same parts.
 */
export interface AccountDeps {
  db: Executor;
  users: UsersRepo;
  usersService: UsersService;
  tokens: TokensService;
  hasher: PasswordHasher;
  images: ImagesService;
}
