// Readings → Observations, idempotently: each reading normalised (bad ones answered with the
// field, never sinking the batch), checked against its device link (the device belongs to the
// reading's patient in this org), deduplicated within the batch, then written as one FHIR
// transaction per chunk with a conditional create on the reading's identifier: a reading
// delivered twice (webhook retry, overlapping backfill, MQTT redelivery) meets its Observation
// and is answered as a duplicate. Numeric values then go to the time series the vitals query reads.
import type { OrgContext } from "../../../context";
import { ApiError, type FieldError } from "../../../platform/errors";
import type { Bundle, BundleEntry, Resource } from "../../fhir/port";
import type { FhirService } from "../../fhir";
import type { Principal } from "../../tenancy/auth/permissions";
import { type NormalisedReading, normaliseReading } from "../metrics/normalise";
import { identifierQuery, toObservation } from "../observation";
import type { Reading } from "../reading";
import { findLinks } from "../store/links";
import { recordSamples, type Sample } from "../store/time-series";

export interface IngestResult {
  /** The reading's Observation (new or the one it duplicates); absent when rejected. */
  readonly observationId?: string;
  readonly duplicate: boolean;
  /** Why the reading was rejected, by field of the reading. */
  readonly errors?: readonly FieldError[];
}

/** Entries per FHIR transaction (the store takes at most 1000). */
export const TRANSACTION_CHUNK = 500;

type Accepted = { index: number; n: NormalisedReading; device: { id: string; name: string } };

const rejected = (errors: FieldError[]): IngestResult => ({ duplicate: false, errors });

/** Checks each reading's device: linked, active, and the reading's patient's. */
async function withDevices(ctx: OrgContext, normalised: { index: number; n: NormalisedReading }[], results: IngestResult[]): Promise<Accepted[]> {
  const links = new Map((await findLinks(ctx, [...new Set(normalised.map((x) => x.n.reading.deviceId))])).map((l) => [l.deviceId, l]));
  return normalised.flatMap(({ index, n }) => {
    const link = links.get(n.reading.deviceId);
    if (link?.status !== "active") {
      results[index] = rejected([{ path: "deviceId", message: `no active device link ${n.reading.deviceId} in this organization` }]);
      return [];
    }
    if (link.patientId !== n.reading.patientId) {
      results[index] = rejected([{ path: "patientId", message: `device ${link.deviceId} is linked to another patient` }]);
      return [];
    }
    return [{ index, n, device: { id: link.deviceId, name: link.name } }];
  });
}

function sampleOf(a: Accepted): Sample | undefined {
  const { n } = a;
  if (n.value === undefined || n.definition.components || n.definition.sampled) return undefined;
  return { patientId: n.reading.patientId, metric: n.reading.metric, t: n.at, deviceId: a.device.id, value: n.value };
}

function outcomeText(outcome: Resource | undefined): string | undefined {
  const issues = (outcome?.issue ?? []) as { diagnostics?: string }[];
  return issues.map((i) => i.diagnostics).filter(Boolean).join("; ") || undefined;
}

async function writeChunk(ctx: OrgContext, fhir: FhirService, chunk: Accepted[], results: IngestResult[]): Promise<void> {
  const entries: BundleEntry[] = chunk.map((a) => ({
    resource: toObservation(a.n, a.device) as Resource,
    request: { method: "POST", url: "Observation", ifNoneExist: identifierQuery(a.n.identifier) },
  }));
  let response: Bundle;
  try {
    response = await fhir.batch({ resourceType: "Bundle", type: "transaction", entry: entries });
  } catch (e) {
    // One Observation the store refuses must not sink the others: the chunk again as a batch, entry by entry.
    if (!(e instanceof ApiError) || e.status >= 500) throw e;
    response = await fhir.batch({ resourceType: "Bundle", type: "batch", entry: entries });
  }
  chunk.forEach((a, i) => {
    const entry = response.entry?.[i];
    const status = entry?.response?.status ?? "500";
    if (/^2/.test(status)) results[a.index] = { observationId: entry?.resource?.id, duplicate: !status.startsWith("201") };
    else results[a.index] = rejected([{ path: "reading", message: outcomeText(entry?.response?.outcome) ?? `the FHIR store answered ${status}` }]);
  });
  // Duplicates too: a batch whose transaction committed but whose samples did not is repaired by its retry.
  await recordSamples(
    ctx.d1,
    ctx.orgId,
    chunk.flatMap((a) => (results[a.index]?.observationId ? (sampleOf(a) ?? []) : [])),
  );
}

export async function ingestReadings(ctx: OrgContext, principal: Principal, readings: readonly Reading[]): Promise<IngestResult[]> {
  const results: IngestResult[] = new Array(readings.length);
  const normalised: { index: number; n: NormalisedReading }[] = [];
  readings.forEach((reading, index) => {
    const n = normaliseReading(reading);
    if (n.ok) normalised.push({ index, n: n.reading });
    else results[index] = rejected(n.errors);
  });
  const accepted = await withDevices(ctx, normalised, results);
  // The same reading twice in one batch: written once, the second answered as its duplicate.
  const first = new Map<string, Accepted>();
  const repeats: { index: number; of: Accepted }[] = [];
  for (const a of accepted) {
    const seen = first.get(a.n.identifier);
    if (seen) repeats.push({ index: a.index, of: seen });
    else first.set(a.n.identifier, a);
  }
  const unique = [...first.values()];
  // The audit-log flush the transactions ask for starts once this batch's own writes are done:
  // started at once, it would hold the shard while the time series and the alerts still write.
  const fhir = ctx.fhir(principal, { holdAuditFlush: true });
  try {
    for (let i = 0; i < unique.length; i += TRANSACTION_CHUNK) await writeChunk(ctx, fhir, unique.slice(i, i + TRANSACTION_CHUNK), results);
    for (const { index, of } of repeats) results[index] = { observationId: results[of.index]?.observationId, duplicate: true };
    // New Observations only: a redelivered reading was evaluated when it first arrived.
    await ctx.readingsStored(readings.flatMap((reading, i) => (results[i]?.observationId && !results[i]?.duplicate ? [{ reading, observationId: results[i]!.observationId! }] : [])));
  } finally {
    fhir.releaseAuditFlush();
  }
  return results;
}
