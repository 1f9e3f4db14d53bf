// Health Connect record batches from the companion app. Each record is checked on its own and
// keyed by clientRecordId (else Health Connect's id) and clientRecordVersion: a version not
// higher than the one stored is a duplicate and changes nothing; a higher one is answered
// `updated`: its readings meet the older version's Observations (same identifiers) and give the
// changed ones new versions, and the older version's Observations it no longer has (a sample
// gone, a record stored before versions were updated in place) are marked entered-in-error. Records
// ending more than 30 days before the patient's first grant are refused with the reason, as
// Health Connect itself reads no further back.
import { and, eq, inArray } from "drizzle-orm";
import type { OrgContext } from "../../../../platform/org-context";
import type { OrgData } from "../../../../platform/org-data";
import { type ItemOutcome, storeItems, type UploadAnswer } from "../companion/store-items";
import { companionGrants, companionRecordVersions } from "../companion/tables";
import type { DeviceLinkView } from "../services";
import { readingIdentifier } from "../../reading";
import { HEALTH_CONNECT_KIND, HEALTH_CONNECT_TYPES, mapHealthConnectRecord, recordEnd } from "./mapping";
import { HealthConnectRecordInput } from "./schemas";

const HISTORY_DAYS = 30;
const DAY_MS = 86_400_000;
/** D1 binds at most 100 values per statement. */
const LOOKUP_CHUNK = 90;
const INTERVAL_TYPES = new Set(["StepsRecord", "DistanceRecord", "ActiveCaloriesBurnedRecord", "SleepSessionRecord"]);

type Version = { version: number; observationIds: string[] };

async function firstGrant(data: OrgData, deviceId: string, grantedAt: string | undefined): Promise<number> {
  const proposed = grantedAt && Date.parse(grantedAt) <= Date.now() ? new Date(grantedAt).toISOString() : new Date().toISOString();
  await data.db.insert(companionGrants).values({ orgId: data.orgId, deviceId, firstGrantAt: proposed }).onConflictDoNothing();
  const [row] = await data.db.select().from(companionGrants).where(and(eq(companionGrants.orgId, data.orgId), eq(companionGrants.deviceId, deviceId)));
  return Date.parse(row?.firstGrantAt ?? proposed);
}

async function storedVersions(data: OrgData, deviceId: string, keys: readonly string[]): Promise<Map<string, Version>> {
  const out = new Map<string, Version>();
  for (let i = 0; i < keys.length; i += LOOKUP_CHUNK) {
    const rows = await data.db
      .select()
      .from(companionRecordVersions)
      .where(and(eq(companionRecordVersions.orgId, data.orgId), eq(companionRecordVersions.deviceId, deviceId), inArray(companionRecordVersions.recordId, keys.slice(i, i + LOOKUP_CHUNK))));
    for (const r of rows) out.set(r.recordId, { version: r.version, observationIds: r.observationIds });
  }
  return out;
}

/** A record's time fields as its type needs them, or the field problem. */
function timeProblem(type: string, r: { time?: string; startTime?: string; endTime?: string }, path: string) {
  if (INTERVAL_TYPES.has(type)) {
    if (!r.startTime || !r.endTime) return { path: `${path}.startTime`, message: `${type} needs startTime and endTime` };
    if (Date.parse(r.endTime) < Date.parse(r.startTime)) return { path: `${path}.endTime`, message: "endTime is before startTime" };
  } else if (type !== "HeartRateRecord" && !r.time) return { path: `${path}.time`, message: `${type} needs time` };
  return undefined;
}

export async function uploadHealthConnectRecords(data: OrgContext, device: DeviceLinkView, records: readonly unknown[], grantedAt?: string): Promise<UploadAnswer> {
  const grant = await firstGrant(data, device.deviceId, grantedAt);
  const oldest = grant - HISTORY_DAYS * DAY_MS;
  const parsed = records.map((raw, i) => ({ i, result: HealthConnectRecordInput.safeParse(raw) }));
  const keyOf = (m: { clientRecordId?: string | null | undefined; id?: string | undefined }) => (m.clientRecordId ? `client:${m.clientRecordId}` : `hc:${m.id}`);
  const stored = await storedVersions(data, device.deviceId, [...new Set(parsed.flatMap((p) => (p.result.success ? [keyOf(p.result.data.metadata)] : [])))]);
  const linked = { deviceId: device.deviceId, patientId: device.patientId };

  const writes: { index: number; key: string; version: number; replaces?: string[]; identifiers?: string[] }[] = [];
  const outcomes = parsed.map(({ i, result }): ItemOutcome => {
    const path = `records[${i}]`;
    if (!result.success) return { errors: result.error.issues.map((e) => ({ path: [path, ...e.path].join(".").replace(/\.(\d+)/g, "[$1]"), message: e.message })) };
    const r = result.data;
    if (!HEALTH_CONNECT_TYPES.includes(r.recordType)) return { skipped: `Health Connect record type ${r.recordType} is not imported` };
    const problem = timeProblem(r.recordType, r, path);
    if (problem) return { errors: [problem] };
    const end = recordEnd(r) ?? (Array.isArray(r.samples) ? String((r.samples as { time?: string }[]).at(-1)?.time ?? "") : "");
    if (!end || Date.parse(end) < oldest) return { errors: [{ path: `${path}.time`, message: `older than ${HISTORY_DAYS} days before the first Health Connect grant (${new Date(grant).toISOString()})` }] };
    const key = keyOf(r.metadata);
    const version = r.metadata.clientRecordVersion;
    const known = stored.get(key);
    if (known && version <= known.version) return { duplicate: true };
    const mapped = mapHealthConnectRecord(r.recordType, r, {
      device: linked,
      sourceId: key,
      path,
      attributes: { health_connect_type: r.recordType, ...(r.metadata.dataOrigin?.packageName ? { data_origin: r.metadata.dataOrigin.packageName } : {}), ...(r.metadata.device?.model ? { source_device: r.metadata.device.model } : {}) },
    });
    if (!("readings" in mapped)) return mapped;
    stored.set(key, { version, observationIds: [] });
    writes.push({ index: i, key, version, ...(known ? { replaces: known.observationIds, identifiers: mapped.readings.map(readingIdentifier) } : {}) });
    return known ? { ...mapped, replaces: known.observationIds } : mapped;
  });

  // What the new versions no longer have goes first: a value of theirs at the same instant must not
  // meet it in the time series. What they re-send stays, to be updated in place.
  await data.platformServices.retract(
    data,
    HEALTH_CONNECT_KIND,
    writes.flatMap((w) => w.replaces ?? []),
    writes.flatMap((w) => w.identifiers ?? []),
  );
  const answer = await storeItems(data, HEALTH_CONNECT_KIND, outcomes, "records");
  const now = new Date().toISOString();
  for (const w of writes) {
    const observationIds = answer.results[w.index]?.observation_ids ?? [];
    if (!observationIds.length) continue;
    await data.db
      .insert(companionRecordVersions)
      .values({ orgId: data.orgId, deviceId: device.deviceId, recordId: w.key, version: w.version, observationIds, updatedAt: now })
      .onConflictDoUpdate({ target: [companionRecordVersions.orgId, companionRecordVersions.deviceId, companionRecordVersions.recordId], set: { version: w.version, observationIds, updatedAt: now } });
  }
  return answer;
}
