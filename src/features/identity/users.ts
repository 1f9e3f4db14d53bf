// User records in the control database. Reads and writes are scoped by org, except the
// invitation lookup (the token names its user) and the updates of a user already found in its org.
import { and, count, desc, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "../../platform/db/client";
import type { Role } from "../../platform/principal";
import { type UserRow, type UserStatus, users } from "./tables";

export interface NewUser {
  orgId: string;
  email: string;
  name: string;
  role: Role;
  fhirUser?: string | undefined;
  invitationHash: string;
  invitationExpiresAt: string;
  createdBy: string;
}

export interface UserChanges {
  role?: Role | undefined;
  name?: string | undefined;
  fhirUser?: string | null | undefined;
  status?: Extract<UserStatus, "active" | "disabled"> | undefined;
  /** An administrator's unlock: the failure count back to 0 and no lockout. */
  failedSignIns?: 0 | undefined;
  lockedUntil?: null | undefined;
  /** Null: forget the user's identity provider binding (their next single sign-on binds again). */
  identityProvider?: null | undefined;
}

/** A user created at their first single sign-on (just-in-time): active, no password, bound to the IdP's subject. */
export interface ProvisionedUser {
  orgId: string;
  email: string;
  name: string;
  role: Role;
  issuer: string;
  subject: string;
}

/** A user without a second factor. */
const NO_TOTP = { totpSecretEnc: null, totpPendingEnc: null, totpEnabledAt: null, totpLastStep: null, totpRecoveryHashes: null } as const;

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export class UserStore {
  constructor(private readonly db: Database) {}

  async create(input: NewUser): Promise<UserRow> {
    const row: UserRow = {
      id: crypto.randomUUID(),
      orgId: input.orgId,
      email: normalizeEmail(input.email),
      name: input.name,
      role: input.role,
      fhirUser: input.fhirUser ?? null,
      status: "invited",
      passwordHash: null,
      invitationHash: input.invitationHash,
      invitationExpiresAt: input.invitationExpiresAt,
      failedSignIns: 0,
      lockedUntil: null,
      lastSignInAt: null,
      lastSignInMethod: null,
      identityProvider: null,
      externalSubject: null,
      createdAt: new Date().toISOString(),
      createdBy: input.createdBy,
      accessPolicyId: null,
      ...NO_TOTP,
    };
    await this.db.insert(users).values(row);
    return row;
  }

  async createProvisioned(input: ProvisionedUser, at: string): Promise<UserRow> {
    const row: UserRow = {
      id: crypto.randomUUID(),
      orgId: input.orgId,
      email: normalizeEmail(input.email),
      name: input.name,
      role: input.role,
      fhirUser: null,
      status: "active",
      passwordHash: null,
      invitationHash: null,
      invitationExpiresAt: null,
      failedSignIns: 0,
      lockedUntil: null,
      lastSignInAt: null,
      lastSignInMethod: null,
      identityProvider: input.issuer,
      externalSubject: input.subject,
      createdAt: at,
      createdBy: "sso",
      accessPolicyId: null,
      ...NO_TOTP,
    };
    await this.db.insert(users).values(row);
    return row;
  }

  async list(orgId: string, limit: number, offset: number): Promise<{ rows: UserRow[]; total: number }> {
    const [rows, totals] = await Promise.all([
      this.db.select().from(users).where(eq(users.orgId, orgId)).orderBy(desc(users.createdAt), desc(users.id)).limit(limit).offset(offset),
      this.db.select({ n: count() }).from(users).where(eq(users.orgId, orgId)),
    ]);
    return { rows, total: totals[0]?.n ?? 0 };
  }

  async get(orgId: string, id: string): Promise<UserRow | undefined> {
    return this.db.select().from(users).where(and(eq(users.orgId, orgId), eq(users.id, id))).get();
  }

  async findByEmail(orgId: string, email: string): Promise<UserRow | undefined> {
    return this.db.select().from(users).where(and(eq(users.orgId, orgId), eq(users.email, normalizeEmail(email)))).get();
  }

  async findByInvitation(invitationHash: string): Promise<UserRow | undefined> {
    return this.db.select().from(users).where(eq(users.invitationHash, invitationHash)).get();
  }

  /** The user the IdP's subject is bound to in this organization. */
  async findBySubject(orgId: string, issuer: string, subject: string): Promise<UserRow | undefined> {
    return this.db
      .select()
      .from(users)
      .where(and(eq(users.orgId, orgId), eq(users.identityProvider, issuer), eq(users.externalSubject, subject)))
      .get();
  }

  /** Binds the user to the subject, only while no subject is bound (two first sign-ins at once: one wins). */
  async bindSubject(id: string, issuer: string, subject: string): Promise<boolean> {
    const done = await this.db
      .update(users)
      .set({ identityProvider: issuer, externalSubject: subject })
      .where(and(eq(users.id, id), isNull(users.externalSubject)))
      .returning({ id: users.id });
    return done.length === 1;
  }

  /** A single sign-on: when and how. The password lockout is the password's, so it is left as it is. */
  async recordSsoSignIn(id: string, at: string): Promise<void> {
    await this.db.update(users).set({ lastSignInAt: at, lastSignInMethod: "sso" }).where(eq(users.id, id));
  }

  /** An invited user who signs in through the organization's IdP: active, the invitation spent. */
  async activateInvited(id: string): Promise<void> {
    await this.db.update(users).set({ status: "active", invitationHash: null, invitationExpiresAt: null }).where(and(eq(users.id, id), eq(users.status, "invited")));
  }

  async setRole(id: string, role: Role): Promise<void> {
    await this.db.update(users).set({ role }).where(eq(users.id, id));
  }

  /**
   * Applies the changes; with `keepAnAdmin`, only while another active admin of the org remains
   * (one statement, so two admins demoting each other at once cannot both succeed). Answers
   * undefined when the user is not there, "last-admin" when the guard held the change back.
   */
  async update(orgId: string, id: string, changes: UserChanges, keepAnAdmin = false): Promise<UserRow | "last-admin" | undefined> {
    const { identityProvider, ...rest } = changes;
    const set: Record<string, unknown> = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
    if (identityProvider === null) Object.assign(set, { identityProvider: null, externalSubject: null });
    if (Object.keys(set).length) {
      const otherAdmins = sql`(SELECT count(*) FROM ${users} AS o WHERE o.org_id = ${orgId} AND o.role = 'admin' AND o.status = 'active' AND o.id <> ${id}) > 0`;
      const done = await this.db
        .update(users)
        .set(set)
        .where(and(eq(users.orgId, orgId), eq(users.id, id), ...(keepAnAdmin ? [otherAdmins] : [])))
        .returning({ id: users.id });
      if (!done.length && keepAnAdmin && (await this.get(orgId, id))) return "last-admin";
    }
    return this.get(orgId, id);
  }

  /** Sets the access policy the user acts under (null: none), when they act under `from` (if given); undefined when no such user of this org has the id. */
  async setAccessPolicy(orgId: string, id: string, accessPolicyId: string | null, from?: string): Promise<UserRow | undefined> {
    const rows = await this.db
      .update(users)
      .set({ accessPolicyId })
      .where(and(eq(users.orgId, orgId), eq(users.id, id), from === undefined ? undefined : eq(users.accessPolicyId, from)))
      .returning();
    return rows[0];
  }

  /** The users acting under an access policy. */
  holding(orgId: string, accessPolicyId: string): Promise<UserRow[]> {
    return this.db.select().from(users).where(and(eq(users.orgId, orgId), eq(users.accessPolicyId, accessPolicyId)));
  }

  /** Accepts the invitation once: only while it is still pending, so a replayed token changes nothing. */
  async accept(id: string, invitationHash: string, passwordHash: string, name?: string): Promise<boolean> {
    const done = await this.db
      .update(users)
      .set({ status: "active", passwordHash, invitationHash: null, invitationExpiresAt: null, ...(name ? { name } : {}) })
      .where(and(eq(users.id, id), eq(users.invitationHash, invitationHash), eq(users.status, "invited")))
      .returning({ id: users.id });
    return done.length === 1;
  }

  /** Replaces the password hash with one of the same password under stronger parameters, unless it changed meanwhile. */
  async replacePasswordHash(id: string, from: string, to: string): Promise<void> {
    await this.db.update(users).set({ passwordHash: to }).where(and(eq(users.id, id), eq(users.passwordHash, from)));
  }

  /** Counts one more consecutive failure (atomically) and answers the new count. */
  async recordFailure(id: string): Promise<number> {
    const hit = await this.db
      .update(users)
      .set({ failedSignIns: sql`${users.failedSignIns} + 1` })
      .where(eq(users.id, id))
      .returning({ n: users.failedSignIns });
    return hit[0]?.n ?? 0;
  }

  async lock(id: string, until: string): Promise<void> {
    await this.db.update(users).set({ lockedUntil: until }).where(eq(users.id, id));
  }

  async recordSuccess(id: string, at: string): Promise<void> {
    await this.db.update(users).set({ failedSignIns: 0, lockedUntil: null, lastSignInAt: at, lastSignInMethod: "password" }).where(eq(users.id, id));
  }
}
