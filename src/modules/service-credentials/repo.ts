import { sql } from 'kysely';
import type { Executor } from '../../db/transaction.js';

export interface ServiceCredentialRow {
  id: string;
  name: string;
  clientId: string;
  secretHash: Buffer;
  createdAt: Date;
  rotatedAt: Date | null;
}

const toRow = (row: {
  id: string;
  name: string;
  client_id: string;
  secret_hash: Uint8Array;
  created_at: Date;
  rotated_at: Date | null;
}): ServiceCredentialRow => ({
  id: row.id,
  name: row.name,
  clientId: row.client_id,
  secretHash: Buffer.from(row.secret_hash),
  createdAt: row.created_at,
  rotatedAt: row.rotated_at,
});

export class ServiceCredentialsRepo {
  constructor(private readonly db: Executor) {}

  async insert(row: { id: string; name: string; clientId: string; secretHash: Buffer }): Promise<void> {
    await this.db
      .insertInto('service_credentials')
      .values({ id: row.id, name: row.name, client_id: row.clientId, secret_hash: row.secretHash })
      .execute();
  }

  async all(): Promise<ServiceCredentialRow[]> {
    const rows = await this.db.selectFrom('service_credentials').selectAll().orderBy('created_at').execute();
    return rows.map(toRow);
  }

  async findByClientId(clientId: string): Promise<ServiceCredentialRow | undefined> {
    const row = await this.db
      .selectFrom('service_credentials')
      .selectAll()
      .where('client_id', '=', clientId)
      .executeTakeFirst();
    return row && toRow(row);
  }

  /** By name (any case) or client_id. */
  async find(reference: string): Promise<ServiceCredentialRow | undefined> {
    const row = await this.db
      .selectFrom('service_credentials')
      .selectAll()
      .where((eb) =>
        eb.or([eb(sql`lower(name)`, '=', reference.toLowerCase()), eb('client_id', '=', reference)]),
      )
      .executeTakeFirst();
    return row && toRow(row);
  }

  async replaceSecret(id: string, secretHash: Buffer): Promise<void> {
    await this.db
      .updateTable('service_credentials')
      .set({ secret_hash: secretHash, rotated_at: sql<Date>`now()` })
      .where('id', '=', id)
      .execute();
  }

  async delete(id: string): Promise<void> {
    await this.db.deleteFrom('service_credentials').where('id', '=', id).execute();
  }
}
