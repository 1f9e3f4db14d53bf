// A companion upload's items (HealthKit samples, Health Connect records) → the device core's
// ingest, answered per item in the order sent: each item became readings (created, updated or
// duplicate), was skipped (a type or value that is not a reading, with the reason), or was
// rejected (with the field). `updated`: a record already stored changed (a Health Connect record's
// higher clientRecordVersion, a HealthKit sample re-sent under its UUID with another value): its
// Observations got new versions, or the previous version's were withdrawn.
import type { Reading } from "../../reading";
import type { OrgContext } from "../../../../platform/org-context";
import type { StoreResult } from "../services";

export interface FieldProblem {
  readonly path: string;
  readonly message: string;
}

/**
 * What one uploaded item turned into before storing. `replaces`: the Observations of the record's
 * previous version (those the new readings do not meet again were withdrawn before storing).
 */
export type ItemOutcome =
  | { readonly readings: readonly Reading[]; readonly replaces?: readonly string[] }
  | { readonly skipped: string }
  | { readonly errors: readonly FieldProblem[] }
  | { readonly duplicate: true };

export type ItemStatus = "created" | "updated" | "duplicate" | "skipped" | "rejected";

export interface ItemResult {
  readonly index: number;
  readonly status: ItemStatus;
  readonly observation_ids?: string[];
  readonly reason?: string;
  readonly errors?: FieldProblem[];
}

export interface UploadAnswer {
  readonly results: ItemResult[];
  readonly created: number;
  readonly updated: number;
  readonly duplicates: number;
  readonly skipped: number;
  readonly rejected: number;
}

export async function storeItems(data: OrgContext, kind: string, items: readonly ItemOutcome[], field: string): Promise<UploadAnswer> {
  const readings = items.flatMap((o) => ("readings" in o ? o.readings : []));
  const stored = await data.platformServices.store(data, kind, readings);
  let next = 0;
  const results = items.map((o, index): ItemResult => {
    if ("errors" in o) return { index, status: "rejected", errors: [...o.errors] };
    if ("skipped" in o) return { index, status: "skipped", reason: o.skipped };
    if ("duplicate" in o) return { index, status: "duplicate" };
    const mine = stored.slice(next, next + o.readings.length);
    next += o.readings.length;
    const errors = mine.flatMap((r) => (r.errors ?? []).map((e) => ({ path: `${field}[${index}].${e.path}`, message: e.message })));
    const ids = mine.flatMap((r) => (r.observationId ? [r.observationId] : []));
    if (!ids.length) return errors.length ? { index, status: "rejected", errors } : { index, status: "skipped", reason: "no readings" };
    return { index, status: statusOf(mine, ids, "replaces" in o ? o.replaces : undefined), observation_ids: ids, ...(errors.length ? { errors } : {}) };
  });
  const count = (s: ItemStatus) => results.filter((r) => r.status === s).length;
  return { results, created: count("created"), updated: count("updated"), duplicates: count("duplicate"), skipped: count("skipped"), rejected: count("rejected") };
}

/** An item's status from its readings' outcomes: a changed record is `updated`, one where nothing changed a `duplicate`. */
function statusOf(mine: readonly StoreResult[], ids: readonly string[], replaces: readonly string[] | undefined): ItemStatus {
  const written = mine.filter((r) => !r.duplicate && !r.errors);
  const withdrawn = replaces?.some((id) => !ids.includes(id)) ?? false;
  if (replaces && (written.length || withdrawn)) return "updated";
  if (written.some((r) => r.updated)) return "updated";
  return written.length ? "created" : "duplicate";
}
