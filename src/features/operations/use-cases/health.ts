// Liveness and readiness: the service is healthy when its database answers.
import { sql } from "drizzle-orm";
import type { Database } from "../../../platform/db/client";

export async function checkHealth(db: Database): Promise<{ status: "ok"; time: string }> {
  await db.run(sql`SELECT 1`);
  return { status: "ok", time: new Date().toISOString() };
}
