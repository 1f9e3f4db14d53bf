// Readings → Observations, idempotently: each reading normalised (bad ones answered with the
// field, never sinking the batch), checked against its device link (the device belongs to the
// reading's patient in this org), deduplicated within the batch, then written as one FHIR
// transaction per chunk with a conditional create on the reading's identifier: a reading
// delivered twice (webhook retry, overlapping backfill, MQTT redelivery) meets its Observation
// and is answered as a duplicate. A reading that meets its Observation with other content (a
// vendor's record re-sent with grown steps, a re-score) gives it a new version instead: the
// conditional create answers the stored Observation, so telling the two apart costs no extra
// read, and only the changed ones go in a second transaction (version-checked, so an Observation
// retracted meanwhile is not overwritten). A retracted (entered-in-error) Observation is never
// revived, and an Observation of another patient or device is never taken over: the identifier
// names the device link, so only a record stored before it did (or written by hand) can meet one,
// and that reading is refused with the Observation it met. Numeric values then go to the time
// series the vitals query reads.
import type { PublishedEvent } from "../../../platform/events";
import type { OrgContext } from "../../../platform/org-context";
import { ApiError, type FieldError } from "../../../platform/errors";
import type { Bundle, BundleEntry, Resource } from "../../fhir";
import type { FhirService } from "../../fhir";
import type { Principal } from "../../tenancy";
import { type NormalisedReading, normaliseReading } from "../metrics/normalise";
import { contentDiffers, identifierQuery, sampleKeyOf, toObservation } from "../observation";
import type { Reading } from "../reading";
import { findLinks } from "../store/links";
import { forgetSamples, recordSamples, type Sample, seriesKey } from "../store/time-series";

export interface IngestResult {
  /** The reading's Observation (new, updated or the one it duplicates); absent when rejected. */
  readonly observationId?: string;
  /** The reading met its Observation unchanged (or retracted): nothing was written. */
  readonly duplicate: boolean;
  /** The reading met its Observation with other content: the Observation has a new version. */
  readonly updated?: boolean;
  /** The Observation's new version, when updated. */
  readonly version?: string;
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
  return { patientId: n.reading.patientId, metric: seriesKey(n.reading.metric, n.statistic), t: n.at, deviceId: a.device.id, value: n.value };
}

function outcomeText(outcome: Resource | undefined): string | undefined {
  const issues = (outcome?.issue ?? []) as { diagnostics?: string }[];
  return issues.map((i) => i.diagnostics).filter(Boolean).join("; ") || undefined;
}

/** One chunk's entries as a transaction; refused as a whole (4xx), again as a batch, entry by entry. */
async function commit(fhir: FhirService, entries: BundleEntry[]): Promise<Bundle> {
  try {
    return await fhir.batch({ resourceType: "Bundle", type: "transaction", entry: entries });
  } catch (e) {
    // One Observation the store refuses must not sink the others.
    if (!(e instanceof ApiError) || e.status >= 500) throw e;
    return fhir.batch({ resourceType: "Bundle", type: "batch", entry: entries });
  }
}

const refusal = (entry: BundleEntry | undefined, status: string) => rejected([{ path: "reading", message: outcomeText(entry?.response?.outcome) ?? `the FHIR store answered ${status}` }]);

const referenceOf = (element: unknown) => (element as { reference?: unknown } | undefined)?.reference;

/** Whether a stored Observation is this reading's own: the same patient and device (an update never moves one). */
const ownedBy = (stored: Resource, a: Accepted) => referenceOf(stored.subject) === `Patient/${a.n.reading.patientId}` && referenceOf(stored.device) === `Device/${a.device.id}`;

const notOwned = (a: Accepted, stored: Resource) =>
  rejected([{ path: "sourceRecordId", message: `record ${a.n.reading.sourceRecordId} is stored as Observation/${stored.id} of another patient or device; it was not changed` }]);

type Changed = { a: Accepted; stored: Resource & { id: string }; fresh: Resource };

async function writeChunk(ctx: OrgContext, fhir: FhirService, chunk: Accepted[], results: IngestResult[]): Promise<void> {
  const fresh = chunk.map((a) => toObservation(a.n, a.device) as Resource);
  const response = await commit(
    fhir,
    chunk.map((a, i) => ({ resource: fresh[i], request: { method: "POST", url: "Observation", ifNoneExist: identifierQuery(a.n.identifier) } })),
  );
  const changed: Changed[] = [];
  const retracted = new Set<number>();
  chunk.forEach((a, i) => {
    const entry = response.entry?.[i];
    const status = entry?.response?.status ?? "500";
    const stored = entry?.resource;
    if (!/^2/.test(status)) results[a.index] = refusal(entry, status);
    else if (status.startsWith("201") || !stored?.id) results[a.index] = { observationId: stored?.id, duplicate: !status.startsWith("201") };
    else if (!ownedBy(stored, a)) results[a.index] = notOwned(a, stored);
    else if (stored.status === "entered-in-error") {
      // The vendor deleted it: a late copy neither revives the Observation nor its sample.
      retracted.add(a.index);
      results[a.index] = { observationId: stored.id, duplicate: true };
    } else if (contentDiffers(stored, fresh[i]!)) changed.push({ a, stored: stored as Resource & { id: string }, fresh: fresh[i]! });
    else results[a.index] = { observationId: stored.id, duplicate: true };
  });
  if (changed.length) {
    const updates = await commit(
      fhir,
      changed.map(({ stored, fresh }) => ({
        resource: { ...fresh, id: stored.id },
        request: { method: "PUT", url: `Observation/${stored.id}`, ifMatch: `W/"${stored.meta?.versionId}"` },
      })),
    );
    changed.forEach(({ a, stored }, i) => {
      const entry = updates.entry?.[i];
      const status = entry?.response?.status ?? "500";
      const version = entry?.resource?.meta?.versionId;
      results[a.index] = /^2/.test(status) ? { observationId: stored.id, duplicate: false, updated: true, ...(version ? { version } : {}) } : refusal(entry, status);
    });
  }
  // An updated reading whose sample moved (another time) or went (no value now) leaves its old place.
  // A record's statistic never changes between versions: its old sample is in the same series (an
  // Observation stored before aggregates had their own series carries no marker, and the place under
  // the bare metric may be another sample's).
  const moved = changed.flatMap(({ a, stored }) => {
    const at = results[a.index]?.updated ? sampleKeyOf(stored) : undefined;
    const old = at && { ...at, metric: seriesKey(a.n.reading.metric, a.n.statistic) };
    const now = sampleOf(a);
    return old && !(now && now.t === old.t && now.metric === old.metric && now.deviceId === old.deviceId) ? [old] : [];
  });
  await forgetSamples(ctx.d1, ctx.orgId, moved);
  // Duplicates too: a batch whose transaction committed but whose samples did not is repaired by its retry.
  const stored = chunk.filter((a) => results[a.index]?.observationId && !retracted.has(a.index));
  const samples = (list: Accepted[]) => list.flatMap((a) => sampleOf(a) ?? []);
  await recordSamples(ctx.d1, ctx.orgId, samples(stored.filter((a) => !results[a.index]?.updated)));
  await recordSamples(ctx.d1, ctx.orgId, samples(stored.filter((a) => results[a.index]?.updated)), true);
}

/** The `device.reading.created` event of a reading stored as a new Observation or a new version of one (docs/webhooks.md). */
function readingCreated(reading: Reading, observationId: string, version: string | undefined): PublishedEvent {
  const effectiveAt = "at" in reading.time ? reading.time.at : reading.time.start;
  return {
    type: "device.reading.created",
    id: `device.reading.created.${observationId}.${version ?? "1"}`,
    occurred_at: new Date().toISOString(),
    data: { observation_id: observationId, version_id: version ?? "1", patient_id: reading.patientId, device_id: reading.deviceId, metric: reading.metric, value: reading.value ?? null, unit: reading.unit ?? null, effective_at: effectiveAt },
  };
}

/**
 * Each reading's outcome, in order. `results` is filled in place as each chunk commits, so a
 * caller that passes its own sees, after a throw, what was stored before it (a webhook delivery
 * retried later counts the Observations it updated in the failed attempt).
 */
export async function ingestReadings(ctx: OrgContext, principal: Principal, readings: readonly Reading[], results: IngestResult[] = new Array(readings.length)): Promise<IngestResult[]> {
  const normalised: { index: number; n: NormalisedReading }[] = [];
  readings.forEach((reading, index) => {
    const n = normaliseReading(reading);
    if (n.ok) normalised.push({ index, n: n.reading });
    else results[index] = rejected(n.errors);
  });
  const accepted = await withDevices(ctx, normalised, results);
  // The same reading twice in one batch: written once (answered on the first), the others as its
  // duplicates; the content written is the last one sent, a vendor's latest version of the record.
  const first = new Map<string, Accepted>();
  const repeats: { index: number; of: Accepted }[] = [];
  for (const a of accepted) {
    const seen = first.get(a.n.identifier);
    if (seen) {
      repeats.push({ index: a.index, of: seen });
      first.set(a.n.identifier, { ...a, index: seen.index });
    } else first.set(a.n.identifier, a);
  }
  const unique = [...first.values()];
  // The audit-log flush the transactions ask for starts once this batch's own writes are done:
  // started at once, it would hold the shard while the time series and the alerts still write.
  const fhir = ctx.fhir(principal, { holdAuditFlush: true });
  try {
    for (let i = 0; i < unique.length; i += TRANSACTION_CHUNK) await writeChunk(ctx, fhir, unique.slice(i, i + TRANSACTION_CHUNK), results);
    for (const { index, of } of repeats) results[index] = { observationId: results[of.index]?.observationId, duplicate: true };
    // New and changed Observations only: an unchanged redelivery was evaluated when it first arrived.
    const stored = unique.flatMap(({ index, n }) => {
      const r = results[index];
      return r?.observationId && !r.duplicate ? [{ reading: n.reading, observationId: r.observationId, ...(r.version ? { version: r.version } : {}) }] : [];
    });
    await ctx.readingsStored(stored);
    await ctx.publish(stored.map((s) => readingCreated(s.reading, s.observationId, s.version)));
  } finally {
    fhir.releaseAuditFlush();
  }
  return results;
}
