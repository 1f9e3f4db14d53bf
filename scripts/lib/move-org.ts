// `npm run admin -- move-org`: asks the running service to move an organization between shards
// (src/platform/org-move.ts does the work inside the Worker, where the shard bindings are). The
// service answers when the move is done (tens of seconds: it waits out every isolate's directory
// cache twice).
import { callOperatorRoute } from "./operator";

export function moveOrg(opts: { orgId: string; shard: string; url?: string; remote: boolean }): Promise<unknown> {
  return callOperatorRoute({ command: "move-org", path: `organizations/${encodeURIComponent(opts.orgId)}/move`, body: { shard: opts.shard }, url: opts.url, remote: opts.remote });
}

/** `npm run admin -- purge-audit`: erases the org's AuditEvents older than its retention (src/features/audit/use-cases/purge.ts). */
export function purgeAudit(opts: { orgId: string; url?: string; remote: boolean }): Promise<unknown> {
  return callOperatorRoute({ command: "purge-audit", path: `organizations/${encodeURIComponent(opts.orgId)}/audit/purge`, url: opts.url, remote: opts.remote });
}

/** `npm run admin -- set-limits`: replaces the org's limit overrides (src/features/tenancy/use-cases/set-limits.ts), audited. */
export function setLimits(opts: { orgId: string; limits: unknown; url?: string; remote: boolean }): Promise<unknown> {
  return callOperatorRoute({ command: "set-limits", path: `organizations/${encodeURIComponent(opts.orgId)}/limits`, body: { limits: opts.limits }, url: opts.url, remote: opts.remote });
}
