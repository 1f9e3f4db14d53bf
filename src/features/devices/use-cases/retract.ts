// Readings the source withdrew (a vendor's delete, a companion record replaced by a newer
// version): their Observations are marked `entered-in-error`, never deleted (the record of what
// was received stays, and FHIR consumers know to disregard it), and their values leave the time
// series, so the vitals no longer show them. Alerts are not raised again: nothing is ingested.
import type { OrgContext } from "../../../platform/org-context";
import type { Resource } from "../../fhir";
import type { Principal } from "../../tenancy";
import { METRICS } from "../metrics/table";
import { identifierQuery, readingIdentifierOf, sampleKeyOf } from "../observation";
import { readingIdentifier } from "../reading";
import { forgetSamples } from "../store/time-series";

/** Values per identifier search (the store allows 300 per search). */
const SEARCH_VALUES = 250;

/** Marks the Observations entered-in-error (those not already) and forgets their samples; the count marked. */
export async function retractObservations(ctx: OrgContext, principal: Principal, observations: readonly Resource[]): Promise<number> {
  const fhir = ctx.fhir(principal);
  const live = observations.filter((o) => o.resourceType === "Observation" && o.status !== "entered-in-error");
  for (const o of live) await fhir.update({ ...o, id: o.id as string, status: "entered-in-error" });
  await forgetSamples(ctx.d1, ctx.orgId, live.flatMap((o) => sampleKeyOf(o) ?? []));
  return live.length;
}

/** `keep`: reading identifiers whose Observations stay (a record's new version re-sends them: they get a new version instead). */
export async function retractObservationIds(ctx: OrgContext, principal: Principal, ids: readonly string[], keep: ReadonlySet<string> = new Set()): Promise<number> {
  const fhir = ctx.fhir(principal);
  const found = await Promise.all(ids.map((id) => fhir.read("Observation", id).catch(() => undefined)));
  const kept = (o: Resource) => keep.has(readingIdentifierOf(o) ?? "");
  return retractObservations(ctx, principal, found.filter((o): o is Resource => o !== undefined && !kept(o)));
}

/** A platform's records by device and source record id (every metric a record may have become). */
export async function retractSourceRecords(ctx: OrgContext, principal: Principal, platform: string, records: readonly { deviceId: string; sourceRecordId: string }[]): Promise<number> {
  const identifiers = [...new Set(records.flatMap((r) => [...METRICS.keys()].map((metric) => readingIdentifier({ platform, ...r, metric }))))];
  const fhir = ctx.fhir(principal);
  const found: Resource[] = [];
  for (let i = 0; i < identifiers.length; i += SEARCH_VALUES) {
    const values = identifiers.slice(i, i + SEARCH_VALUES).map((v) => identifierQuery(v).slice("identifier=".length));
    const bundle = await fhir.search("Observation", `identifier=${values.join(",")}&_count=1000`);
    found.push(...(bundle.entry ?? []).flatMap((e) => (e.resource ? [e.resource] : [])));
  }
  return retractObservations(ctx, principal, found);
}
