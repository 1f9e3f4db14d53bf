// The MQTT convention for device readings (wearables.md 5, aligned with the PHD IG so a gateway
// can emit it directly): topic `rpm/{orgId}/devices/{deviceId}/obs`, payload the compact JSON
// envelope {msgId, patientRef, metric | loinc | mdc, value | components | samples, ucum, ts,
// tsQuality, seq, battery}. `read` turns one message into the Worker's DeviceReading (the body
// item of POST /api/v1/devices/readings) or says why it cannot: codes, units and ranges are the
// Worker's to check, the bridge only checks what it needs to key, order and forward the message.
import { createHash } from "node:crypto";
import { type MdcCode, mdcCode } from "../../../../src/features/devices/metrics/mdc";
import { METRICS, type MetricDefinition } from "../../../../src/features/devices/metrics/table";

export const PLATFORM = "mqtt";
/** A reading bigger than this (an ECG strip of 100,000 samples is about 700 KB) is refused. */
export const MAX_PAYLOAD_BYTES = 1024 * 1024;

/** What the MQTT listener hands the intake: the topic and the payload as text. */
export interface MqttEnvelope {
  topic: string;
  payload: string;
}

/** The Worker's DeviceReading (components/schemas/DeviceReading). */
export interface DeviceReadingBody {
  patient_id: string;
  device_id: string;
  metric: string;
  value?: number | null;
  components?: { metric: string; value: number | null; unit: string }[];
  unit: string;
  time: { at: string } | { start: string; end: string };
  platform: string;
  source_record_id: string;
  absent_reason?: (typeof ABSENT_REASONS)[number];
  attributes?: Record<string, string>;
  samples?: { period_ms: number; values: number[]; origin?: number };
}

export type ConventionResult =
  | { ok: true; reading: DeviceReadingBody; deviceId: string; messageId: string }
  | { ok: false; reason: string; deviceId: string | null; messageId: string | null };

const TOPIC = /^rpm\/([^/]+)\/devices\/([^/]+)\/obs$/;

/** The subscription filter for one organization's readings. */
export const topicFilter = (orgId: string): string => `rpm/${orgId}/devices/+/obs`;

// LOINC and MDC codes → metric: each metric's primary coding first, so a code two metrics share
// (the spec's CGM 14745-4, an extra coding of both glucose metrics) goes to the one it is primary for.
const BY_CODE = new Map<string, MetricDefinition>();
for (const pass of [0, 1]) {
  for (const d of METRICS.values()) {
    for (const [i, c] of d.coding.entries()) {
      if ((i === 0) === (pass === 0) && !BY_CODE.has(`${c.system}|${c.code}`)) BY_CODE.set(`${c.system}|${c.code}`, d);
    }
  }
}
const LOINC = "http://loinc.org";
const MDC = "urn:iso:std:iso:11073:10101";

const ABSENT_REASONS = ["error", "not-performed", "unknown", "asked-declined"] as const;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: unknown): string | undefined => (typeof v === "string" && v.trim() !== "" ? v.trim() : typeof v === "number" ? String(v) : undefined);

class Malformed extends Error {}
const fail = (reason: string): never => {
  throw new Malformed(reason);
};

/** What a message measures: its metric, and the MDC code it was named by (docs/devices.md, "MDC codes"). */
interface Measured {
  readonly def: MetricDefinition;
  readonly mdc?: MdcCode;
}

function measuredOf(p: Json): Measured {
  const named = text(p.metric);
  if (named) return { def: METRICS.get(named) ?? fail(`unknown metric "${named}"`) };
  const loinc = text(p.loinc);
  const byLoinc = loinc ? BY_CODE.get(`${LOINC}|${loinc}`) : undefined;
  if (byLoinc) return { def: byLoinc };
  const code = text(p.mdc);
  const mdc = code ? mdcCode(code) : undefined;
  if (mdc) return { def: METRICS.get(mdc.metric) ?? fail(`no metric ${mdc.metric}`), mdc };
  if (code) return { def: METRICS.get("bedside") ?? fail("no bedside metric") };
  return fail(loinc ? `no metric for LOINC ${loinc}` : "no metric, loinc or mdc");
}

function numberOrNull(v: unknown, path: string): number | null {
  if (v === null || v === undefined) return null;
  if (typeof v !== "number" || !Number.isFinite(v)) return fail(`${path} is not a number`);
  return v;
}

function componentsOf(def: MetricDefinition, list: unknown): DeviceReadingBody["components"] {
  if (!Array.isArray(list) || list.length === 0 || list.length > 10) return fail("components must be a list of 1 to 10");
  return list.map((c, i) => {
    if (!isObject(c)) return fail(`components[${i}] is not an object`);
    const named = text(c.metric);
    const code = text(c.loinc) ? `${LOINC}|${text(c.loinc)}` : `${MDC}|${text(c.mdc)}`;
    const mdc = text(c.loinc) ? undefined : mdcCode(text(c.mdc) ?? "");
    const byMdc = mdc?.metric === def.metric ? mdc.component : undefined;
    const metric = named ?? byMdc ?? def.components?.find((d) => d.coding.some((k) => `${k.system}|${k.code}` === code))?.metric;
    if (!metric) return fail(`components[${i}]: no component of ${def.metric} for ${named ?? code}`);
    const unit = text(c.ucum) ?? text(c.unit) ?? fail(`components[${i}] has no unit (ucum)`);
    return { metric, value: numberOrNull(c.value, `components[${i}].value`), unit };
  });
}

function instant(v: unknown, path: string): string {
  const t = text(v);
  if (!t || !/^\d{4}-\d\d-\d\dT\d\d:\d\d/.test(t) || Number.isNaN(Date.parse(t))) return fail(`${path} is not an ISO 8601 date-time`);
  return t;
}

/** Devices without a clock (tsQuality "none", or no ts at all) get the time the bridge received the message (PHD's coincident time stamp idea). */
function timeOf(p: Json, receivedAt: string): DeviceReadingBody["time"] {
  if (isObject(p.period)) return { start: instant(p.period.start, "period.start"), end: instant(p.period.end, "period.end") };
  if (p.tsQuality === "none" || p.ts === undefined) return { at: receivedAt };
  return { at: instant(p.ts, "ts") };
}

/** The reference's fallback key when a gateway sends no msgId: (deviceId, code, ts, value). */
function derivedId(deviceId: string, p: Json, receivedAt: string): string {
  // Without ts either, only the receipt time tells two equal values apart (a redelivery then counts again: send msgId).
  const basis = JSON.stringify([deviceId, p.metric ?? p.loinc ?? p.mdc, p.ts ?? p.period ?? receivedAt, p.value ?? p.components ?? null]);
  return `sha256:${createHash("sha256").update(basis).digest("hex").slice(0, 32)}`;
}

/** The MDC code the Observation is to carry as an extra coding: a bedside stream's, or a mapped code its metric's codings lack (a pulse rate's 149530). */
function mdcCodingOf({ def, mdc }: Measured, p: Json): Record<string, string> {
  if (def.metric === "bedside" && text(p.mdc)) return { mdc_code: text(p.mdc) as string };
  if (!mdc || mdc.component || def.coding.some((c) => c.system === MDC && c.code === mdc.code)) return {};
  return { mdc_code: mdc.code, mdc_display: mdc.refId };
}

function attributesOf(measured: Measured, p: Json): Record<string, string> | undefined {
  const attributes: Record<string, string> = mdcCodingOf(measured, p);
  if (typeof p.tsQuality === "string" && p.tsQuality !== "synced") attributes.ts_quality = p.tsQuality.slice(0, 32);
  if (text(p.trend)) attributes.trend = (text(p.trend) as string).slice(0, 64);
  return Object.keys(attributes).length > 0 ? attributes : undefined;
}

function readingOf(deviceId: string, p: Json, receivedAt: string, messageId: string): DeviceReadingBody {
  const patient = text(p.patientRef) ?? text(p.patientId) ?? fail("no patientRef");
  const patientId = patient.replace(/^Patient\//, "");
  if (!/^[A-Za-z0-9\-.]{1,64}$/.test(patientId)) fail(`patientRef "${patient.slice(0, 80)}" is not Patient/<id>`);
  const measured = measuredOf(p);
  const { def, mdc } = measured;
  // A panel's part sent on its own (a monitor's systolic): the panel with that one component.
  const part = mdc?.component && p.components === undefined ? [{ mdc: mdc.code, value: p.value, ucum: text(p.ucum) ?? text(p.unit) ?? mdc.ucum }] : undefined;
  const components = p.components !== undefined || part ? componentsOf(def, part ?? p.components) : undefined;
  const samples = isObject(p.samples) ? p.samples : undefined;
  const value = numberOrNull(p.value, "value");
  const absent = ABSENT_REASONS.find((r) => r === p.absentReason);
  if (p.absentReason !== undefined && !absent) fail(`absentReason must be one of ${ABSENT_REASONS.join(", ")}`);
  if (!components && !samples && value === null && !absent) fail("no value, components, samples or absentReason");
  const unit = text(p.ucum) ?? text(p.unit) ?? components?.[0]?.unit ?? mdc?.ucum ?? def.ucum ?? fail("no unit (ucum)");
  return {
    patient_id: patientId,
    device_id: deviceId,
    metric: def.metric,
    ...(components ? { components } : { value }),
    unit,
    time: timeOf(p, receivedAt),
    platform: PLATFORM,
    // Per device: two gateways counting their own msgIds from 1 must not meet each other's Observations.
    source_record_id: `${deviceId}:${messageId}`,
    ...(absent ? { absent_reason: absent } : {}),
    ...(attributesOf(measured, p) ? { attributes: attributesOf(measured, p) } : {}),
    ...(samples ? { samples: samples as DeviceReadingBody["samples"] & object } : {}),
  };
}

/** One MQTT message under the convention, for the bridge serving `orgId`. */
export function readMessage(envelope: MqttEnvelope, orgId: string, receivedAt: string): ConventionResult {
  const match = TOPIC.exec(envelope.topic);
  const deviceId = match?.[2] ?? null;
  let messageId: string | null = null;
  try {
    if (!match || !deviceId) return fail(`topic "${envelope.topic.slice(0, 200)}" is not rpm/{orgId}/devices/{deviceId}/obs`);
    // The bridge forwards with its own organization's key: a topic of another organization is never sent on.
    if (match[1] !== orgId) return fail(`topic names organization "${match[1]}", this bridge serves "${orgId}"`);
    if (Buffer.byteLength(envelope.payload) > MAX_PAYLOAD_BYTES) return fail(`payload larger than ${MAX_PAYLOAD_BYTES} bytes`);
    let payload: unknown;
    try {
      payload = JSON.parse(envelope.payload);
    } catch {
      return fail("payload is not JSON");
    }
    if (!isObject(payload)) return fail("payload is not a JSON object");
    const msgId = text(payload.msgId);
    if (msgId !== undefined && msgId.length > 200) return fail("msgId longer than 200 characters");
    messageId = msgId ?? derivedId(deviceId, payload, receivedAt);
    return { ok: true, reading: readingOf(deviceId, payload, receivedAt, messageId), deviceId, messageId };
  } catch (error) {
    if (error instanceof Malformed) return { ok: false, reason: error.message, deviceId, messageId };
    throw error;
  }
}
