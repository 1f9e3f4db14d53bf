// Liveness and readiness: the service is healthy when every D1 database (control and shards) answers.

export async function checkHealth(databases: D1Database[]): Promise<{ status: "ok"; time: string }> {
  await Promise.all(databases.map((db) => db.prepare("SELECT 1").first()));
  return { status: "ok", time: new Date().toISOString() };
}
