// Client-assertion jtis already used, kept a minute past the assertion's exp (past the clock tolerance, the assertion
// is refused as expired anyway). The primary key (client, jti) makes the check and the claim one
// atomic insert, so two racing uses of one assertion cannot both win.
import { and, eq, lt } from "drizzle-orm";
import type { Database } from "../../platform/db/client";
import { smartAssertionJtis } from "./tables";

/** Whether `jti` was unused (and is now used); expired rows of the client are swept on the way. */
export async function claimJti(db: Database, clientId: string, jti: string, exp: number, nowSeconds: number): Promise<boolean> {
  if (!jti) return false;
  await db.delete(smartAssertionJtis).where(and(eq(smartAssertionJtis.clientId, clientId), lt(smartAssertionJtis.expiresAt, nowSeconds - 60)));
  const claimed = await db.insert(smartAssertionJtis).values({ clientId, jti, expiresAt: exp }).onConflictDoNothing().returning({ jti: smartAssertionJtis.jti });
  return claimed.length === 1;
}
