// A companion upload's items (HealthKit samples, Health Connect records) → the device core's
// ingest, answered per item in the order sent: each item became readings (created or
// duplicate), was skipped (a type or value that is not a reading, with the reason), or was
// rejected (with the field).
import type { Reading } from "../../features/devices/reading";
import type { OrgData } from "../../platform/org-data";
import { platformServices } from "../../device-platform-services";

export interface FieldProblem {
  readonly path: string;
  readonly message: string;
}

/** What one uploaded item turned into before storing. */
export type ItemOutcome = { readonly readings: readonly Reading[] } | { readonly skipped: string } | { readonly errors: readonly FieldProblem[] } | { readonly duplicate: true };

export type ItemStatus = "created" | "duplicate" | "skipped" | "rejected";

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
  readonly duplicates: number;
  readonly skipped: number;
  readonly rejected: number;
}

export async function storeItems(data: OrgData, kind: string, items: readonly ItemOutcome[], field: string): Promise<UploadAnswer> {
  const readings = items.flatMap((o) => ("readings" in o ? o.readings : []));
  const stored = await platformServices(data.env).store(data, kind, readings);
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
    return { index, status: mine.every((r) => r.duplicate || r.errors) ? "duplicate" : "created", observation_ids: ids, ...(errors.length ? { errors } : {}) };
  });
  const count = (s: ItemStatus) => results.filter((r) => r.status === s).length;
  return { results, created: count("created"), duplicates: count("duplicate"), skipped: count("skipped"), rejected: count("rejected") };
}
