// The operations API's zod schemas (validation and OpenAPI).
import { z } from "@hono/zod-openapi";
import type { MoveJob } from "../../platform/org-move";

export const HealthSchema = z.object({ status: z.literal("ok"), time: z.string() }).openapi("Health");

export const ReadinessSchema = z
  .object({
    status: z.enum(["ready", "not_ready"]),
    time: z.string(),
    checks: z.array(z.object({ name: z.string().openapi({ example: "d1:SHARD_0" }), ok: z.boolean(), ms: z.number(), error: z.string().optional() })),
  })
  .openapi("Readiness");

const TableCopySchema = z.object({ table: z.string(), rows: z.number().int(), checksum: z.string() });

export const OrgMoveSchema = z
  .object({
    id: z.string(),
    orgId: z.string(),
    from: z.string(),
    to: z.string(),
    phase: z.enum(["waiting-before-copy", "copying", "verifying", "waiting-after-switch", "verifying-after-switch", "done", "abandoned", "stuck"]).openapi({
      description:
        "done: the org is on `to` and its writes resume. abandoned: the move failed before the switch; the org stayed on `from` and its writes resume. " +
        "stuck: a check failed after the switch; both copies are kept and writes stay paused for an operator.",
    }),
    progress: z.object({
      tables: z.number().int().openapi({ description: "Org-owned tables to copy and verify" }),
      table: z.number().int().openapi({ description: "Index of the table being copied or verified" }),
      copiedRows: z.number().int(),
      verifiedTables: z.number().int(),
    }),
    tables: z.array(TableCopySchema).openapi({ description: "The tables verified so far in the current pass (all of them once done)" }),
    error: z.object({ code: z.string(), message: z.string() }).optional(),
    startedAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("OrgMove");

export function presentOrgMove(job: MoveJob): z.infer<typeof OrgMoveSchema> {
  return {
    id: job.id,
    orgId: job.orgId,
    from: job.from,
    to: job.to,
    phase: job.phase,
    progress: { tables: job.tables.length, table: job.table, copiedRows: job.copiedRows, verifiedTables: job.verified.length },
    tables: job.verified,
    ...(job.error ? { error: job.error } : {}),
    startedAt: job.startedAt,
    updatedAt: job.updatedAt,
  };
}
