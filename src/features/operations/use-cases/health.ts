// Liveness and readiness. Liveness: every D1 database answers. Readiness (for load balancers
// and the console): every D1 database, R2 and a Durable Object round trip answer, each timed,
// and the answer says which failed.

export async function checkHealth(databases: D1Database[]): Promise<{ status: "ok"; time: string }> {
  await Promise.all(databases.map((db) => db.prepare("SELECT 1").first()));
  return { status: "ok", time: new Date().toISOString() };
}

export interface ReadinessProbes {
  databases: { name: string; db: D1Database }[];
  blobs: R2Bucket;
  /** One round trip to a Durable Object. */
  durableObject(): Promise<unknown>;
}

export interface Check {
  name: string;
  ok: boolean;
  ms: number;
  error?: string;
}

async function timed(name: string, probe: () => Promise<unknown>): Promise<Check> {
  const start = performance.now();
  try {
    await probe();
    return { name, ok: true, ms: Math.round((performance.now() - start) * 10) / 10 };
  } catch (error) {
    // The binding's own message names what is wrong (unbound, unreachable); never data.
    return { name, ok: false, ms: Math.round((performance.now() - start) * 10) / 10, error: error instanceof Error ? error.message.slice(0, 200) : String(error) };
  }
}

export async function checkReadiness(probes: ReadinessProbes): Promise<{ status: "ready" | "not_ready"; time: string; checks: Check[] }> {
  const checks = await Promise.all([
    ...probes.databases.map(({ name, db }) => timed(`d1:${name}`, () => db.prepare("SELECT 1").first())),
    timed("r2", () => probes.blobs.head("health/readiness-probe")),
    timed("durable_object", probes.durableObject),
  ]);
  return { status: checks.every((c) => c.ok) ? "ready" : "not_ready", time: new Date().toISOString(), checks };
}
