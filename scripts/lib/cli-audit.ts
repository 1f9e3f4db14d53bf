// The AuditEvents of the admin CLI's commands that work on the databases themselves (create-org,
// create-key, revoke-key): the same management AuditEvent the service records (features/audit),
// with the operator as agent (`operator`, "admin CLI (database)"), stored as the store stores its
// own (features/fhir/audit.ts) and appended to the organization's pending log on its shard. The
// service indexes that log before any AuditEvent read or search (GET /api/audit included) and by
// its minute cron, so the event is listed beside the API's own (docs/audit.md).
import type { ManagementAction } from "../../src/features/audit/actions";
import type { ManagementActionInput } from "../../src/features/audit/event";
import { managementAuditEvent } from "../../src/features/audit/event";
import { cliPrincipal } from "../../src/features/audit/operators";
import { asStoredAudit } from "../../src/features/fhir/audit";
import { lit } from "./sql";

/** The statement that appends the AuditEvent of `input`, done to `orgId` by the CLI, to the org's pending log (run it on the org's shard). */
export function cliAuditSql(orgId: string, input: ManagementActionInput, now = new Date().toISOString()): string {
  const event = asStoredAudit(managementAuditEvent(cliPrincipal(orgId), input, now), orgId, now);
  return `INSERT INTO fhir_audit_pending (org_id, id, recorded, content) VALUES (${lit(orgId)}, ${lit(event.id)}, ${lit(now)}, ${lit(JSON.stringify(event))}) ON CONFLICT DO NOTHING;`;
}

/** Runs a statement on one database (the control database, or an organization's shard). */
type Run = (statement: string) => Promise<unknown>;

export const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** The trail of one CLI `command`: each AuditEvent names it (and a remote database) in its detail. */
export function cliTrail({ command, remote, control }: { command: string; remote: boolean; control: Run }) {
  /** Appends the AuditEvent of `input` to `orgId`'s trail, through `on` (its shard). */
  const audit = (on: Run, orgId: string, input: Omit<ManagementActionInput, "detail">) =>
    on(cliAuditSql(orgId, { ...input, detail: { command, ...(remote ? { database: "remote" } : {}) } }));
  return {
    audit,
    /** Records a refusal with its reason, then fails the command with it. */
    async refuse(on: Run, orgId: string, action: ManagementAction, err: unknown, entityId?: string): Promise<never> {
      await audit(on, orgId, { action, outcome: "4", reason: messageOf(err), ...(entityId ? { entityId } : {}) });
      throw err;
    },
    /** Records a change done; one whose AuditEvent cannot be written is undone (`undo`, on the control database), so none stays unaudited. */
    recordOrUndo: (on: Run, orgId: string, input: Omit<ManagementActionInput, "detail" | "outcome">, undo: string) =>
      audit(on, orgId, { ...input, outcome: "0" }).catch(async (err: unknown) => {
        await control(undo);
        throw new Error(`${command}: its AuditEvent could not be written, so the change was undone: ${messageOf(err)}`);
      }),
  };
}
