// POST /v1/devices/readings: the API's readings (checked item by item) through ingestReadings,
// answered per reading in the order sent.
import type { OrgContext } from "../../../platform/org-context";
import type { Principal } from "../../tenancy";
import type { Reading } from "../reading";
import { readReadings } from "../schemas";
import { ingestReadings } from "./ingest";

type Status = "created" | "updated" | "duplicate" | "rejected";

export async function receiveReadings(ctx: OrgContext, principal: Principal, items: readonly unknown[]) {
  const read = readReadings(items);
  const valid = read.filter((r): r is { index: number; reading: Reading } => r.reading !== undefined);
  const ingested = await ingestReadings(
    ctx,
    principal,
    valid.map((r) => r.reading),
  );
  const byIndex = new Map(valid.map((r, i) => [r.index, ingested[i]!]));
  const results = read.map(({ index, errors }) => {
    const result = byIndex.get(index);
    if (!result || result.errors) {
      const details = errors ?? (result?.errors ?? []).map((e) => ({ ...e, path: `readings[${index}].${e.path}` }));
      return { index, status: "rejected" as Status, errors: details };
    }
    return { index, status: (result.duplicate ? "duplicate" : result.updated ? "updated" : "created") as Status, ...(result.observationId ? { observation_id: result.observationId } : {}) };
  });
  const count = (s: Status) => results.filter((r) => r.status === s).length;
  return { results, created: count("created"), updated: count("updated"), duplicates: count("duplicate"), rejected: count("rejected") };
}
