// The people of an organization (issue #34): who signs in to the console, with which role. In the
// control database beside the keys and console sessions, because a session's lookup joins its user
// (a disabled user's sessions stop at once) and sign-in names the org before any shard is known.
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { ROLES } from "../../platform/principal";
import { organizations } from "../tenancy/tables";

export const USER_STATUSES = ["active", "invited", "disabled"] as const;
export type UserStatus = (typeof USER_STATUSES)[number];

export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    orgId: text("org_id")
      .notNull()
      .references(() => organizations.id),
    /** Lowercased: the login, unique in its organization. */
    email: text("email").notNull(),
    name: text("name").notNull(),
    role: text("role", { enum: ROLES }).notNull(),
    /** The FHIR resource the user is (`Practitioner/123`): SMART's fhirUser, the AuditEvent's agent. */
    fhirUser: text("fhir_user"),
    status: text("status", { enum: USER_STATUSES }).notNull(),
    /** `scrypt$N$r$p$salt$hash` (password.ts); null until the invitation is accepted. */
    passwordHash: text("password_hash"),
    /** SHA-256 of the one-time invitation token; cleared once accepted. */
    invitationHash: text("invitation_hash"),
    invitationExpiresAt: text("invitation_expires_at"),
    /** Consecutive failed sign-ins; a success resets it. */
    failedSignIns: integer("failed_sign_ins").notNull().default(0),
    lockedUntil: text("locked_until"),
    lastSignInAt: text("last_sign_in_at"),
    createdAt: text("created_at").notNull(),
    createdBy: text("created_by"),
    /** The access policy (features/access-policies) the user acts under; null: none narrows them. */
    accessPolicyId: text("access_policy_id"),
  },
  (t) => [
    uniqueIndex("users_org_email_uq").on(t.orgId, t.email),
    uniqueIndex("users_invitation_uq").on(t.invitationHash),
    index("users_org_created_idx").on(t.orgId, t.createdAt),
  ],
);

export type UserRow = typeof users.$inferSelect;
