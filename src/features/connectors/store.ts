// Connector records in D1. Credentials are sealed before they reach the table
// and unsealed only for outbound calls; reads for the API see masked values.
import { and, count, desc, eq } from "drizzle-orm";
import type { Database } from "../../platform/db/client";
import { type ConnectorRow, connectors } from "./tables";
import type { Env } from "../../platform/env";
import { decryptCredentials, encryptCredentials, maskCredentials } from "./crypto";
import type { ConnectorAuth } from "./types";

export interface ConnectorInput {
  name: string;
  type: string;
  endpoint: string;
  auth: ConnectorAuth;
  /** Absent on update: keep the stored credentials. */
  credentials?: Record<string, string>;
}

export interface ResolvedConnector {
  row: ConnectorRow;
  credentials: Record<string, string>;
}

const aad = (orgId: string, id: string) => `connector:${orgId}:${id}`;

export class ConnectorStore {
  constructor(
    private readonly db: Database,
    private readonly env: Env,
  ) {}

  private async sealed(orgId: string, id: string, credentials: Record<string, string>) {
    const has = Object.keys(credentials).length > 0;
    return {
      credentialsEnc: has ? await encryptCredentials(this.env, aad(orgId, id), credentials) : null,
      credentialsMasked: maskCredentials(credentials),
    };
  }

  async create(orgId: string, input: ConnectorInput): Promise<ConnectorRow> {
    const id = crypto.randomUUID();
    const now = new Date().toISOString();
    const row: ConnectorRow = {
      orgId,
      id,
      name: input.name,
      type: input.type,
      endpoint: input.endpoint,
      auth: input.auth as Record<string, string>,
      ...(await this.sealed(orgId, id, input.credentials ?? {})),
      createdAt: now,
      updatedAt: now,
    };
    await this.db.insert(connectors).values(row);
    return row;
  }

  async list(orgId: string, limit: number, offset: number) {
    const where = eq(connectors.orgId, orgId);
    const [rows, totals] = await Promise.all([
      this.db.select().from(connectors).where(where).orderBy(desc(connectors.createdAt), desc(connectors.id)).limit(limit).offset(offset),
      this.db.select({ n: count() }).from(connectors).where(where),
    ]);
    return { rows, total: totals[0]?.n ?? 0 };
  }

  /** Every connector of one type in the org (types are few and orgs hold few connectors). */
  ofType(orgId: string, type: string): Promise<ConnectorRow[]> {
    return this.db.select().from(connectors).where(and(eq(connectors.orgId, orgId), eq(connectors.type, type))).orderBy(desc(connectors.createdAt));
  }

  get(orgId: string, id: string): Promise<ConnectorRow | undefined> {
    return this.db.select().from(connectors).where(and(eq(connectors.orgId, orgId), eq(connectors.id, id))).get();
  }

  async update(orgId: string, id: string, input: ConnectorInput): Promise<ConnectorRow | undefined> {
    const current = await this.get(orgId, id);
    if (!current) return undefined;
    const secrets = input.credentials ? await this.sealed(orgId, id, input.credentials) : {};
    const next: ConnectorRow = {
      ...current,
      name: input.name,
      type: input.type,
      endpoint: input.endpoint,
      auth: input.auth as Record<string, string>,
      ...secrets,
      updatedAt: new Date().toISOString(),
    };
    await this.db.update(connectors).set(next).where(and(eq(connectors.orgId, orgId), eq(connectors.id, id)));
    return next;
  }

  async delete(orgId: string, id: string): Promise<boolean> {
    const res = await this.db.delete(connectors).where(and(eq(connectors.orgId, orgId), eq(connectors.id, id)));
    return res.meta.changes > 0;
  }

  async resolve(orgId: string, id: string): Promise<ResolvedConnector | undefined> {
    const row = await this.get(orgId, id);
    if (!row) return undefined;
    const credentials = row.credentialsEnc ? await decryptCredentials(this.env, aad(orgId, id), row.credentialsEnc) : {};
    return { row, credentials };
  }
}
