// Authorization requests (control database), from the consent screen to their code's exchange.
// Every step is one conditional UPDATE: a request is decided once, a code is exchanged once
// (the second exchange finds it taken and learns which grant to revoke).
import { and, eq, isNotNull, isNull, lt } from "drizzle-orm";
import type { Database } from "../../../platform/db/client";
import { type AuthorizationRow, smartAuthorizations } from "../tables";

/** How long the consent screen may stay open. */
export const CONSENT_SECONDS = 10 * 60;
/** An authorization code's life (RFC 6749 §4.1.2 recommends at most 10 minutes; SMART apps exchange at once). */
export const CODE_SECONDS = 60;

export class AuthorizationStore {
  constructor(private readonly db: Database) {}

  async create(row: AuthorizationRow): Promise<void> {
    // Requests of the org that ended a day ago go (their codes are long expired).
    await this.db.delete(smartAuthorizations).where(and(eq(smartAuthorizations.orgId, row.orgId), lt(smartAuthorizations.expiresAt, Math.floor(Date.now() / 1000) - 86_400)));
    await this.db.insert(smartAuthorizations).values(row);
  }

  get(orgId: string, id: string): Promise<AuthorizationRow | undefined> {
    return this.db.select().from(smartAuthorizations).where(and(eq(smartAuthorizations.orgId, orgId), eq(smartAuthorizations.id, id))).get();
  }

  async setCsrf(id: string, csrfHash: string): Promise<void> {
    await this.db.update(smartAuthorizations).set({ csrfHash }).where(and(eq(smartAuthorizations.id, id), isNull(smartAuthorizations.decidedAt)));
  }

  /** Approves the pending request with its code (and the patient picked); false when it was decided already. */
  async approve(id: string, codeHash: string, patient: string | null, nowMs: number): Promise<boolean> {
    const done = await this.db
      .update(smartAuthorizations)
      .set({ decidedAt: new Date(nowMs).toISOString(), codeHash, patient, expiresAt: Math.floor(nowMs / 1000) + CODE_SECONDS })
      .where(and(eq(smartAuthorizations.id, id), isNull(smartAuthorizations.decidedAt)))
      .returning({ id: smartAuthorizations.id });
    return done.length === 1;
  }

  async deny(id: string, nowMs: number): Promise<boolean> {
    const done = await this.db
      .update(smartAuthorizations)
      .set({ decidedAt: new Date(nowMs).toISOString() })
      .where(and(eq(smartAuthorizations.id, id), isNull(smartAuthorizations.decidedAt)))
      .returning({ id: smartAuthorizations.id });
    return done.length === 1;
  }

  findByCode(orgId: string, codeHash: string): Promise<AuthorizationRow | undefined> {
    return this.db
      .select()
      .from(smartAuthorizations)
      .where(and(eq(smartAuthorizations.orgId, orgId), eq(smartAuthorizations.codeHash, codeHash), isNotNull(smartAuthorizations.decidedAt)))
      .get();
  }

  /** Marks the code exchanged for `grantId`; false when it was exchanged before (a replay). */
  async claimCode(id: string, grantId: string, nowMs: number): Promise<boolean> {
    const done = await this.db
      .update(smartAuthorizations)
      .set({ exchangedAt: new Date(nowMs).toISOString(), grantId })
      .where(and(eq(smartAuthorizations.id, id), isNull(smartAuthorizations.exchangedAt)))
      .returning({ id: smartAuthorizations.id });
    return done.length === 1;
  }
}
