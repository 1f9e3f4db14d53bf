// The TOTP columns of a user row and the pending second steps of sign-in. Every change that spends
// something (a time step, a recovery code, a pending enrollment) is a compare-and-set on the value
// it read, so two requests racing with one code cannot both succeed.
import { and, eq, gt, isNull, lt, or, sql } from "drizzle-orm";
import type { Database } from "../../../platform/db/client";
import { signInChallenges, users } from "../tables";

export class TotpStore {
  constructor(private readonly db: Database) {}

  async startEnrollment(orgId: string, userId: string, pendingEnc: string): Promise<void> {
    await this.db.update(users).set({ totpPendingEnc: pendingEnc }).where(and(eq(users.orgId, orgId), eq(users.id, userId)));
  }

  /** The pending secret becomes the factor, with its first step and recovery codes; false when another request changed it first. */
  async confirm(userId: string, pendingEnc: string, step: number, hashes: string[], at: string): Promise<boolean> {
    const done = await this.db
      .update(users)
      .set({ totpSecretEnc: pendingEnc, totpPendingEnc: null, totpEnabledAt: at, totpLastStep: step, totpRecoveryHashes: hashes })
      .where(and(eq(users.id, userId), eq(users.totpPendingEnc, pendingEnc), isNull(users.totpSecretEnc)))
      .returning({ id: users.id });
    return done.length === 1;
  }

  /** Keeps `step` as the last used, only if it is later than the one kept (a code is good once). */
  async spendStep(userId: string, step: number): Promise<boolean> {
    const done = await this.db
      .update(users)
      .set({ totpLastStep: step })
      .where(and(eq(users.id, userId), or(isNull(users.totpLastStep), lt(users.totpLastStep, step))))
      .returning({ id: users.id });
    return done.length === 1;
  }

  /** Removes one recovery code, if the codes are still `hashes` as read. */
  async spendRecoveryCode(userId: string, hashes: string[], used: string): Promise<boolean> {
    const done = await this.db
      .update(users)
      .set({ totpRecoveryHashes: hashes.filter((h) => h !== used) })
      .where(and(eq(users.id, userId), eq(users.totpRecoveryHashes, sql`${JSON.stringify(hashes)}`)))
      .returning({ id: users.id });
    return done.length === 1;
  }

  async replaceRecoveryCodes(userId: string, hashes: string[]): Promise<void> {
    await this.db.update(users).set({ totpRecoveryHashes: hashes }).where(eq(users.id, userId));
  }

  /** No second factor any more (turned off by the user, or reset by an administrator); false when no such user. */
  async clear(orgId: string, userId: string): Promise<boolean> {
    const done = await this.db
      .update(users)
      .set({ totpSecretEnc: null, totpPendingEnc: null, totpEnabledAt: null, totpLastStep: null, totpRecoveryHashes: null })
      .where(and(eq(users.orgId, orgId), eq(users.id, userId)))
      .returning({ id: users.id });
    if (done.length) await this.db.delete(signInChallenges).where(eq(signInChallenges.userId, userId));
    return done.length === 1;
  }

  async createChallenge(orgId: string, userId: string, challengeHash: string, at: Date, ttlMs: number): Promise<string> {
    const expiresAt = new Date(at.getTime() + ttlMs).toISOString();
    await this.db.insert(signInChallenges).values({ challengeHash, orgId, userId, createdAt: at.toISOString(), expiresAt });
    return expiresAt;
  }

  /** The user an unexpired challenge of this organization waits for. */
  async challenged(orgId: string, challengeHash: string, now: Date): Promise<string | undefined> {
    const row = await this.db
      .select({ userId: signInChallenges.userId })
      .from(signInChallenges)
      .where(and(eq(signInChallenges.challengeHash, challengeHash), eq(signInChallenges.orgId, orgId), gt(signInChallenges.expiresAt, now.toISOString())))
      .get();
    return row?.userId;
  }

  /** Spends the challenge; false when another request spent it first. Expired ones of the user go with it. */
  async spendChallenge(userId: string, challengeHash: string, now: Date): Promise<boolean> {
    const done = await this.db.delete(signInChallenges).where(eq(signInChallenges.challengeHash, challengeHash)).returning({ h: signInChallenges.challengeHash });
    await this.db.delete(signInChallenges).where(and(eq(signInChallenges.userId, userId), lt(signInChallenges.expiresAt, now.toISOString())));
    return done.length === 1;
  }
}
