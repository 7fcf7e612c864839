import { randomBytes, timingSafeEqual } from 'node:crypto';
import { isUniqueViolation } from '../../db/errors.js';
import { ValidationError } from '../../errors.js';
import { newId } from '../../lib/ids.js';
import { hashApiToken, newApiToken } from '../../lib/tokens.js';
import type { ServiceCredentialRow, ServiceCredentialsRepo } from './repo.js';

/** A credential as the operator sees it; `client_secret` only once, when it is made or rotated. */
export interface ServiceCredentialView {
  id: string;
  name: string;
  client_id: string;
  created_at: string;
  rotated_at: string | null;
}

export interface IssuedServiceCredential extends ServiceCredentialView {
  client_secret: string;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
/** Compared against when the client_id is unknown, so that an unknown id costs what a wrong secret does. */
const NOBODY = hashApiToken('nobody');

const view = (row: ServiceCredentialRow): ServiceCredentialView => ({
  id: row.id,
  name: row.name,
  client_id: row.clientId,
  created_at: row.createdAt.toISOString(),
  rotated_at: row.rotatedAt?.toISOString() ?? null,
});

/**
 * The credentials the app's other services introspect tokens with: a public `client_id` and a 256-bit
 * `client_secret` of which only the SHA-256 is kept (as for API tokens: the secret's entropy makes a slow
 * hash needless).
 */
export class ServiceCredentials {
  constructor(private readonly repo: ServiceCredentialsRepo) {}

  async add(name: string): Promise<IssuedServiceCredential> {
    if (!NAME.test(name)) {
      throw new ValidationError({ name: [{ rule: 'regex' }] });
    }
    const secret = newApiToken();
    const row = {
      id: newId(),
      name,
      clientId: `svc_${randomBytes(12).toString('base64url')}`,
      secretHash: hashApiToken(secret),
    };
    try {
      await this.repo.insert(row);
    } catch (error) {
      if (isUniqueViolation(error)) throw new ValidationError({ name: [{ rule: 'unique' }] });
      throw error;
    }
    const made = await this.repo.findByClientId(row.clientId);
    if (made === undefined) throw new Error('the new credential is gone');
    return { ...view(made), client_secret: secret };
  }

  async list(): Promise<ServiceCredentialView[]> {
    return (await this.repo.all()).map(view);
  }

  /** A new secret for the credential (by name or client_id); the old one stops working at once. */
  async rotate(reference: string): Promise<IssuedServiceCredential | undefined> {
    const found = await this.repo.find(reference);
    if (found === undefined) return undefined;
    const secret = newApiToken();
    await this.repo.replaceSecret(found.id, hashApiToken(secret));
    const rotated = await this.repo.find(found.clientId);
    return rotated && { ...view(rotated), client_secret: secret };
  }

  async remove(reference: string): Promise<ServiceCredentialView | undefined> {
    const found = await this.repo.find(reference);
    if (found === undefined) return undefined;
    await this.repo.delete(found.id);
    return view(found);
  }

  /** The credential these prove, or undefined; the secret's digest compared in constant time. */
  async authenticate(clientId: string, secret: string): Promise<ServiceCredentialView | undefined> {
    const found = clientId.length <= 64 ? await this.repo.findByClientId(clientId) : undefined;
    const given = hashApiToken(secret);
    const matches = timingSafeEqual(given, found?.secretHash ?? NOBODY);
    return found !== undefined && matches ? view(found) : undefined;
  }
}
