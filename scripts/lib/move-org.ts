// `npm run admin -- move-org`: asks the running service to move an organization between shards
// (the org's OrgMover Durable Object does the work inside the Worker, where the shard bindings
// are), then follows the job's progress until it ends (tens of seconds at least: it waits out
// every isolate's directory cache twice) and answers the finished job.
import { callOperatorRoute } from "./operator";

interface MoveView {
  phase: string;
  progress: { tables: number; table: number; copiedRows: number };
  error?: { code: string; message: string };
}

const FINISHED = new Set(["done", "abandoned", "stuck"]);

export async function moveOrg(opts: { orgId: string; shard: string; url?: string; remote: boolean; pollMs?: number }): Promise<unknown> {
  const path = `organizations/${encodeURIComponent(opts.orgId)}/move`;
  let job = (await callOperatorRoute({ command: "move-org", path, body: { shard: opts.shard }, url: opts.url, remote: opts.remote })) as MoveView;
  let shown = "";
  while (!FINISHED.has(job.phase)) {
    const line = `${job.phase}: table ${job.progress.table}/${job.progress.tables}, ${job.progress.copiedRows} rows copied`;
    if (line !== shown) process.stderr.write(`${line}\n`);
    shown = line;
    await new Promise((r) => setTimeout(r, opts.pollMs ?? 1_000));
    job = (await callOperatorRoute({ command: "move-org", path, url: opts.url, remote: opts.remote, method: "GET" })) as MoveView;
  }
  if (job.phase !== "done") throw new Error(`move-org ended ${job.phase}: ${job.error?.code ?? ""} ${job.error?.message ?? ""}`);
  return job;
}

/** `npm run admin -- purge-audit`: erases the org's AuditEvents older than its retention (src/features/audit/use-cases/purge.ts). */
export function purgeAudit(opts: { orgId: string; url?: string; remote: boolean }): Promise<unknown> {
  return callOperatorRoute({ command: "purge-audit", path: `organizations/${encodeURIComponent(opts.orgId)}/audit/purge`, url: opts.url, remote: opts.remote });
}

/** `npm run admin -- set-limits`: replaces the org's limit overrides (src/features/tenancy/use-cases/set-limits.ts), audited. */
export function setLimits(opts: { orgId: string; limits: unknown; url?: string; remote: boolean }): Promise<unknown> {
  return callOperatorRoute({ command: "set-limits", path: `organizations/${encodeURIComponent(opts.orgId)}/limits`, body: { limits: opts.limits }, url: opts.url, remote: opts.remote });
}
