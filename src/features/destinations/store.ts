// Destination records of one organization in D1. Signing secrets are sealed before they reach
// the table and unsealed only for the queue's deliveries; the API never shows them.
import { and, count, desc, eq } from "drizzle-orm";
import type { OrgData } from "../../platform/org-data";
import { decryptCredentials, encryptCredentials } from "../connectors";
import { DEFAULT_RETRY, type DeliveryTarget, type Destination, type DestinationOwner, type Ordering, type RetryPolicy } from "./model";
import { type DestinationRow, destinations } from "./tables";

export interface DestinationInput {
  name: string;
  description?: string | null;
  target: DeliveryTarget;
  ordering?: Ordering;
  concurrency?: number;
  retry?: Partial<RetryPolicy>;
  timeout_ms?: number;
  http?: { method?: "POST" | "PUT"; headers?: Record<string, string> };
  hl7?: Record<string, string> | null;
  /** Absent on update: keep the stored secrets. */
  signing_secrets?: string[];
  state?: "active" | "paused";
}

export const DEFAULT_TIMEOUT_MS = 10_000;

const aad = (orgId: string, id: string) => `destination:${orgId}:${id}`;

export class DestinationStore {
  constructor(private readonly data: OrgData) {}

  private get orgId() {
    return this.data.orgId;
  }

  private async sealed(id: string, secrets: string[] | undefined): Promise<{ signingEnc?: string | null }> {
    if (secrets === undefined) return {};
    return { signingEnc: secrets.length ? await encryptCredentials(this.data.env, aad(this.orgId, id), { secrets: JSON.stringify(secrets) }) : null };
  }

  async create(input: DestinationInput, owner: DestinationOwner = null, id: string = crypto.randomUUID()): Promise<DestinationRow> {
    const now = new Date().toISOString();
    const row: DestinationRow = {
      orgId: this.orgId,
      id,
      name: input.name,
      description: input.description ?? null,
      target: input.target,
      ownerKind: owner?.kind ?? null,
      ownerId: owner?.id ?? null,
      ordering: input.ordering ?? "fifo",
      concurrency: input.ordering === "per_key" ? (input.concurrency ?? 4) : 1,
      retry: { ...DEFAULT_RETRY, ...input.retry },
      timeoutMs: input.timeout_ms ?? DEFAULT_TIMEOUT_MS,
      http: { method: input.http?.method ?? "POST", headers: input.http?.headers ?? {} },
      hl7: input.hl7 ?? null,
      signingEnc: (await this.sealed(id, input.signing_secrets)).signingEnc ?? null,
      state: input.state ?? "active",
      createdAt: now,
      updatedAt: now,
    };
    await this.data.db.insert(destinations).values(row);
    return row;
  }

  /** Applies the fields given; the row as stored after, or undefined when there is none. */
  async update(id: string, input: Partial<DestinationInput>): Promise<DestinationRow | undefined> {
    const current = await this.get(id);
    if (!current) return undefined;
    const ordering = input.ordering ?? current.ordering;
    const patch: Partial<DestinationRow> = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.target !== undefined ? { target: input.target } : {}),
      ordering,
      concurrency: ordering === "per_key" ? (input.concurrency ?? (current.ordering === "per_key" ? current.concurrency : 4)) : 1,
      ...(input.retry !== undefined ? { retry: { ...current.retry, ...input.retry } } : {}),
      ...(input.timeout_ms !== undefined ? { timeoutMs: input.timeout_ms } : {}),
      ...(input.http !== undefined ? { http: { method: input.http.method ?? current.http.method, headers: input.http.headers ?? current.http.headers } } : {}),
      ...(input.hl7 !== undefined ? { hl7: input.hl7 } : {}),
      ...(input.state !== undefined ? { state: input.state } : {}),
      ...(await this.sealed(id, input.signing_secrets)),
      updatedAt: new Date().toISOString(),
    };
    const [row] = await this.data.db
      .update(destinations)
      .set(patch)
      .where(and(eq(destinations.orgId, this.orgId), eq(destinations.id, id)))
      .returning();
    return row;
  }

  async get(id: string): Promise<DestinationRow | undefined> {
    const [row] = await this.data.db
      .select()
      .from(destinations)
      .where(and(eq(destinations.orgId, this.orgId), eq(destinations.id, id)));
    return row;
  }

  async byName(name: string): Promise<DestinationRow | undefined> {
    const [row] = await this.data.db
      .select()
      .from(destinations)
      .where(and(eq(destinations.orgId, this.orgId), eq(destinations.name, name)));
    return row;
  }

  async byOwner(owner: NonNullable<DestinationOwner>): Promise<DestinationRow | undefined> {
    const [row] = await this.data.db
      .select()
      .from(destinations)
      .where(and(eq(destinations.orgId, this.orgId), eq(destinations.ownerKind, owner.kind), eq(destinations.ownerId, owner.id)));
    return row;
  }

  /** Newest first; managed destinations are listed too. */
  async list(limit: number, offset: number): Promise<{ rows: DestinationRow[]; total: number }> {
    const org = eq(destinations.orgId, this.orgId);
    const [rows, totals] = await Promise.all([
      this.data.db.select().from(destinations).where(org).orderBy(desc(destinations.createdAt), desc(destinations.id)).limit(limit).offset(offset),
      this.data.db.select({ n: count() }).from(destinations).where(org),
    ]);
    return { rows, total: totals[0]?.n ?? 0 };
  }

  async delete(id: string): Promise<boolean> {
    const rows = await this.data.db
      .delete(destinations)
      .where(and(eq(destinations.orgId, this.orgId), eq(destinations.id, id)))
      .returning({ id: destinations.id });
    return rows.length > 0;
  }

  /** The destination as the queue delivers to it: secrets unsealed. */
  async resolve(row: DestinationRow): Promise<Destination> {
    const secrets = row.signingEnc ? (JSON.parse((await decryptCredentials(this.data.env, aad(row.orgId, row.id), row.signingEnc)).secrets ?? "[]") as string[]) : [];
    return {
      id: row.id,
      orgId: row.orgId,
      name: row.name,
      target: row.target,
      owner: row.ownerKind && row.ownerId ? { kind: row.ownerKind as "subscription" | "webhook", id: row.ownerId } : null,
      ordering: row.ordering,
      concurrency: row.concurrency,
      retry: row.retry,
      timeout_ms: row.timeoutMs,
      http: row.http,
      signing_secrets: secrets,
      state: row.state,
    };
  }
}
