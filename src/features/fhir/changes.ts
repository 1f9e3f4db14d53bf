// What the store tells the rest of the service after it commits writes: one FhirChange per
// resource version a create, update, patch or delete stored (single writes, each entry of a batch,
// a transaction's writes together, conditional writes), never for reads, nor for a write that
// stored nothing (a conditional create that matched, the delete of an absent resource). The hook
// runs after the commit and cannot undo it: whatever it throws is logged, the write stands.
import type { Logger } from "../../platform/observability/log";
import type { Resource } from "./port";
import type { PlannedWrite } from "./write-preconditions";

export interface FhirChange {
  action: "create" | "update" | "delete";
  resourceType: string;
  id: string;
  /** The version the write stored (for a delete: the deletion's version). */
  versionId: string;
  /** After the write; for a delete, the last version before it. */
  resource: Resource & { id: string };
  /** The version an update replaced. */
  previous?: Resource & { id: string };
  /** ISO 8601: when the version was stored. */
  lastUpdated: string;
}

/** Called once per commit with its changes, in the commit's order. */
export type FhirChangeHook = (changes: readonly FhirChange[]) => Promise<void>;

/** The changes a commit of `plans` stored. */
export function changesOf(plans: readonly PlannedWrite[]): FhirChange[] {
  return plans.flatMap((plan): FhirChange[] => {
    const { write } = plan;
    if (write.kind === "put") {
      const resource = plan.resource as Resource & { id: string };
      const previous = write.replaces as (Resource & { id: string }) | undefined;
      return [{ action: previous ? "update" : "create", resourceType: plan.type, id: plan.id, versionId: String(plan.versionId), resource, ...(previous ? { previous } : {}), lastUpdated: plan.lastUpdated }];
    }
    if (write.kind === "delete" && plan.last) return [{ action: "delete", resourceType: plan.type, id: plan.id, versionId: String(plan.versionId), resource: plan.last, lastUpdated: plan.lastUpdated }];
    return [];
  });
}

/** Runs the hook on a commit's changes; a failure is logged, never thrown (the write is committed). */
export async function announce(hook: FhirChangeHook | undefined, plans: readonly PlannedWrite[], log: Logger): Promise<void> {
  if (!hook) return;
  const changes = changesOf(plans);
  if (changes.length === 0) return;
  try {
    await hook(changes);
  } catch (e) {
    log.error("fhir change hook failed", { error: e instanceof Error ? e.message : String(e), changes: changes.length });
  }
}
