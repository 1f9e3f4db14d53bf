// When recorded AuditEvents get indexed. Every write appends its AuditEvent to the pending log in
// the same batch as its effect (one row: atomic with the write); interactions that write nothing
// else send theirs through the audit queue instead (audit-queue.ts), whose consumer indexes them
// directly, and fall back to this log only when the queue is absent or refuses. The log is
// indexed into the store in bulk (AuditRows.flushAudits)
//   - before anything reads or searches AuditEvents (so the API always shows every audit),
//   - after every FLUSH_EVERY audits an isolate appended for an org (so the log stays short),
//   - by the minute cron, for orgs gone quiet.
import { AuditRows } from "./storage/audit-rows";

const FLUSH_EVERY = 200;
/** Audits appended per org by this isolate since its last flush. */
const appended = new Map<string, number>();

/** Counts appended audits; true when this isolate should now flush the org's log. */
export function noteAudits(orgId: string, count: number): boolean {
  const n = (appended.get(orgId) ?? 0) + count;
  if (n < FLUSH_EVERY) {
    appended.set(orgId, n);
    return false;
  }
  appended.delete(orgId);
  return true;
}

/** Indexes the org's whole pending log, or as much as fits before `deadline`. */
export async function flushAuditLog(rows: AuditRows, deadline = Number.POSITIVE_INFINITY): Promise<void> {
  while (Date.now() < deadline && (await rows.flushAudits()) > 0);
}

/** Whether a search or history (type and query) can return AuditEvents. */
export function readsAudits(type: string | undefined, query: URLSearchParams): boolean {
  if (!type || type === "AuditEvent") return true;
  for (const [k, v] of query) if (k.includes("AuditEvent") || v.includes("AuditEvent")) return true;
  return false;
}

/** The cron's sweep of one shard: every org with pending audits but the `paused` ones (being moved), until `deadline`. */
export async function flushAllAuditLogs(shard: D1Database, deadline: number, paused: ReadonlySet<string> = new Set()): Promise<void> {
  const { results } = await shard.prepare("SELECT DISTINCT org_id FROM fhir_audit_pending LIMIT 100").all<{ org_id: string }>();
  for (const { org_id } of results) if (!paused.has(org_id)) await flushAuditLog(new AuditRows(shard, org_id), deadline);
}
