// Observation → OBX (every value[x] the converter reads back: NM, SN, ST/TX, CWE/CE,
// DT/DTM/TS, TM, DR, NR, ED, RP) with its NTE notes, AllergyIntolerance → AL1,
// Condition → DG1: the converter's OBX, AL1 and DG1 maps (convert/clinical.ts) backwards.

import type { Resource } from "../../../platform/fhir-resource";
import { Hl7EncodingError } from "../errors";
import type { Hl7Segment } from "../message";
import { V3 } from "../convert/vocab";
import type { EncodeContext } from "./context";
import { codeOf, cwe, dt, dtm, ei, xad, xcn, xon } from "./datatypes";
import { type Json, list, obj, text } from "./input";
import { realIdentifiers } from "./people";
import { ALLERGEN_TYPE, ALLERGY_SEVERITY_FROM_CRITICALITY, ALLERGY_SEVERITY_FROM_REACTION, OBSERVATION_STATUS_CODE } from "./vocab";
import { type FieldValue, hl7Time, type Rep, repeat, type Sub } from "./writer";

const OBS_VALUE_EXT = "http://hl7.org/fhir/5.0/StructureDefinition/extension-Observation.valueAttachment";
const DATA_ABSENT = "http://terminology.hl7.org/CodeSystem/data-absent-reason";
const COMPARATORS = new Set(["<", "<=", ">=", ">"]);
/** Longest ST value; longer text (or text with line breaks) goes as TX, one repetition per line. */
const ST_MAX = 199;

/** NTE segments, one per note, numbered from 1. */
export function notes(ctx: EncodeContext, annotations: unknown): Hl7Segment[] {
  return list(annotations)
    .map((a) => text(a.text))
    .filter((t): t is string => !!t)
    .map((t, i) => ctx.segment("NTE", { 1: i + 1, 3: t }));
}

/** OBX-6 from a Quantity: code^unit^system name when coded, else the unit alone. */
export function units(ctx: EncodeContext, q: Json | undefined): Rep | undefined {
  const unit = text(q?.unit);
  const code = text(q?.code);
  const system = text(q?.system);
  if (code && system) return [code, unit ?? code, ctx.systems.codingSystem(system)];
  return unit ?? code ? [unit ?? code] : undefined;
}

function numberOf(q: Json | undefined): number | undefined {
  return typeof q?.value === "number" && Number.isFinite(q.value) ? q.value : undefined;
}

/** A MIME type's two parts for ED.2/ED.3 (parameters dropped), as the converter reads them. */
export function mimeParts(contentType: unknown): [string, string] {
  const m = /^\s*([a-z0-9!#$&^_.+-]+)\/([a-z0-9!#$&^_.+-]+)/i.exec(typeof contentType === "string" ? contentType : "");
  return m ? [m[1]!.toLowerCase(), m[2]!.toLowerCase()] : ["application", "octet-stream"];
}

interface ObxValue {
  type?: string;
  value?: FieldValue;
  units?: Rep;
}

/** OBX-2, OBX-5 and OBX-6 from an Observation's value. */
function obxValue(ctx: EncodeContext, obs: Resource): ObxValue {
  const q = obj(obs.valueQuantity);
  if (q) {
    const n = numberOf(q);
    if (n === undefined) return {};
    const comparator = text(q.comparator);
    if (comparator && COMPARATORS.has(comparator)) return { type: "SN", value: [comparator, n], units: units(ctx, q) };
    if (comparator) ctx.warn(`Observation.valueQuantity.comparator ${JSON.stringify(comparator)} has no SN form: the value is written without it`);
    return { type: "NM", value: n, units: units(ctx, q) };
  }
  if (typeof obs.valueInteger === "number") return { type: "NM", value: obs.valueInteger };
  if (obj(obs.valueCodeableConcept)) return { type: ctx.atLeast("2.5") ? "CWE" : "CE", value: cwe(ctx, obs.valueCodeableConcept) };
  if (typeof obs.valueBoolean === "boolean") {
    const yes = obs.valueBoolean;
    return { type: ctx.atLeast("2.5") ? "CWE" : "CE", value: [yes ? "Y" : "N", yes ? "Yes" : "No", "HL70136"] };
  }
  const s = text(obs.valueString);
  if (s) {
    const lines = s.split(/\r\n|\n|\r/);
    return lines.length > 1 || s.length > ST_MAX ? { type: "TX", value: repeat(lines) } : { type: "ST", value: s };
  }
  const range = obj(obs.valueRange);
  if (range) {
    const low = numberOf(obj(range.low));
    const high = numberOf(obj(range.high));
    const u = units(ctx, obj(range.low) ?? obj(range.high));
    if (low !== undefined && high !== undefined) return { type: "SN", value: [undefined, low, "-", high], units: u };
    if (low !== undefined || high !== undefined) return { type: "NR", value: [low, high], units: u };
    return {};
  }
  const ratio = obj(obs.valueRatio);
  if (ratio) {
    const num = numberOf(obj(ratio.numerator));
    const den = numberOf(obj(ratio.denominator));
    if (num === undefined || den === undefined) return {};
    return { type: "SN", value: [undefined, num, ":", den], units: units(ctx, obj(ratio.numerator)) };
  }
  if (typeof obs.valueDateTime === "string") {
    const v = dtm(ctx, obs.valueDateTime, "Observation.valueDateTime");
    return { type: v && v.length <= 8 ? "DT" : ctx.atLeast("2.5") ? "DTM" : "TS", value: v };
  }
  if (typeof obs.valueTime === "string") return { type: "TM", value: hl7Time(obs.valueTime) };
  const period = obj(obs.valuePeriod);
  if (period) return { type: "DR", value: [dtm(ctx, period.start, "Observation.valuePeriod.start"), dtm(ctx, period.end, "Observation.valuePeriod.end")] };
  const attachment = obj(list(obs.extension).find((e) => e.url === OBS_VALUE_EXT)?.valueAttachment);
  if (attachment) return attachmentValue(ctx, attachment, "Observation.valueAttachment");
  if (obs.valueSampledData !== undefined) ctx.warn("Observation.valueSampledData has no HL7 v2 OBX value type: left out");
  return {};
}

/** ED (base64 data) or RP (a URL) for an attachment. */
export function attachmentValue(ctx: EncodeContext, attachment: Json, where: string): ObxValue {
  const data = text(attachment.data);
  if (data) {
    const [major, minor] = mimeParts(attachment.contentType);
    return { type: "ED", value: [undefined, major, minor, "Base64", data.replace(/\s+/g, "")] };
  }
  const url = text(attachment.url);
  if (url && /^[a-z][a-z0-9+.-]*:\S+$/i.test(url)) return { type: "RP", value: [url] };
  ctx.warn(`${where} has neither data nor a URL: left out`);
  return {};
}

/**
 * OBX-11 from status and dataAbsentReason (N: not asked, X: not performed, as the converter
 * reads them). Status unknown has no result status of its own: N would say "not asked", so
 * OBX-11 stays empty, which the converter reads as unknown.
 */
function resultStatus(obs: Resource): string | undefined {
  const absent = codeOf(obs.dataAbsentReason, DATA_ABSENT);
  if (absent === "not-asked") return "N";
  if (absent === "not-performed") return "X";
  const status = text(obs.status);
  return status && status !== "unknown" ? OBSERVATION_STATUS_CODE[status] : undefined;
}

/** OBX (with an NTE per note) from an Observation. */
export function obx(ctx: EncodeContext, obs: Resource, setId: number): Hl7Segment[] {
  ctx.input.use(obs);
  if (!obj(obs.code)) throw new Hl7EncodingError("MISSING_VALUE", `Observation${obs.id ? `/${obs.id}` : ""}.code is required: OBX-3 (observation identifier) cannot be empty`, "Observation.code");
  const v = obxValue(ctx, obs);
  const performers = list(obs.performer);
  const people = performers.filter((p) => ctx.input.resolve(p)?.resourceType !== "Organization").map((p) => xcn(ctx, p));
  const orgRef = performers.find((p) => ctx.input.resolve(p)?.resourceType === "Organization");
  const org = ctx.input.resolve(orgRef, "Organization");
  const range = obj(list(obs.referenceRange)[0]);
  if (list(obs.referenceRange).length > 1) ctx.warn("Observation.referenceRange has several ranges: OBX-7 holds one, the first is written");
  const low = numberOf(obj(range?.low));
  const high = numberOf(obj(range?.high));
  const rangeText = text(range?.text) ?? (low !== undefined && high !== undefined ? `${low}-${high}` : low !== undefined ? `>=${low}` : high !== undefined ? `<=${high}` : undefined);
  const v25 = ctx.atLeast("2.5");
  const interpretation = list(obs.interpretation).map((c) =>
    ctx.atLeast("2.7") ? cwe(ctx, c, { alias: { system: V3("ObservationInterpretation"), table: "0078" } }) : codeOf(c),
  );
  const id = realIdentifiers(ctx, obs.identifier)[0];
  const segment = ctx.segment("OBX", {
    1: setId,
    2: v.type,
    3: cwe(ctx, obs.code),
    5: v.value,
    // units of a value that has none of its own (a coded one) may still scale the reference range
    6: v.units ?? (obj(obs.valueQuantity) ? undefined : units(ctx, obj(range?.low) ?? obj(range?.high))),
    7: rangeText,
    8: repeat(interpretation as (Rep | Sub)[]),
    11: resultStatus(obs),
    14: dtm(ctx, obs.effectiveDateTime ?? obj(obs.effectivePeriod)?.start ?? obs.effectiveInstant, "Observation.effective"),
    16: repeat(people),
    17: cwe(ctx, obs.method),
    20: v25 ? cwe(ctx, obs.bodySite) : undefined,
    21: v25 ? ei(ctx, id) : undefined,
    23: v25 ? xon(ctx, orgRef) : undefined,
    24: v25 ? xad(ctx, obj(list(org?.address)[0])) : undefined,
  });
  return [segment, ...notes(ctx, obs.note)];
}

// ---------------------------------------------------------------- AL1, DG1

/** AL1 from an AllergyIntolerance; one without a code (AL1-3 is required) is left out with a warning. */
export function al1(ctx: EncodeContext, allergy: Resource, setId: number): Hl7Segment | undefined {
  const code = cwe(ctx, allergy.code);
  if (!code) {
    ctx.warn(`AllergyIntolerance${allergy.id ? `/${allergy.id}` : ""} has no code: AL1-3 is required, left out`);
    return undefined;
  }
  ctx.input.use(allergy);
  const category = (Array.isArray(allergy.category) ? allergy.category : []).find((c): c is string => typeof c === "string");
  const type = (category && ALLERGEN_TYPE[category]) || (allergy.type === "allergy" ? "MA" : undefined);
  const reaction = obj(list(allergy.reaction)[0]);
  const severity = (text(reaction?.severity) && ALLERGY_SEVERITY_FROM_REACTION[text(reaction?.severity)!]) || (text(allergy.criticality) ? ALLERGY_SEVERITY_FROM_CRITICALITY[text(allergy.criticality)!] : undefined);
  const manifestations = list(reaction?.manifestation).map((m) => text(m.text) ?? text(list(m.coding)[0]?.display) ?? text(list(m.coding)[0]?.code));
  return ctx.segment("AL1", {
    1: setId,
    2: type ? [type, undefined, "HL70127"] : undefined,
    3: code,
    4: severity ? [severity, undefined, "HL70128"] : undefined,
    5: repeat(manifestations),
    6: dt(ctx, allergy.onsetDateTime, "AllergyIntolerance.onsetDateTime"),
  });
}

const VERIFICATION = "http://terminology.hl7.org/CodeSystem/condition-ver-status";

/** DG1 from a Condition. */
export function dg1(ctx: EncodeContext, condition: Resource, setId: number): Hl7Segment | undefined {
  const code = obj(condition.code);
  const description = text(code?.text);
  const coded = cwe(ctx, code);
  if (!coded && !description) {
    ctx.warn(`Condition${condition.id ? `/${condition.id}` : ""} has no code: left out`);
    return undefined;
  }
  ctx.input.use(condition);
  const verification = codeOf(condition.verificationStatus, VERIFICATION) ?? codeOf(condition.verificationStatus);
  const v25 = ctx.atLeast("2.5");
  return ctx.segment("DG1", {
    1: setId,
    3: coded,
    4: description,
    5: dtm(ctx, condition.onsetDateTime, "Condition.onsetDateTime"),
    6: verification === "confirmed" ? "F" : verification === "provisional" || verification === "differential" ? "W" : undefined,
    16: xcn(ctx, condition.asserter),
    19: dtm(ctx, condition.recordedDate, "Condition.recordedDate"),
    20: v25 ? ei(ctx, realIdentifiers(ctx, condition.identifier)[0]) : undefined,
    21: v25 && verification === "entered-in-error" ? "D" : undefined,
  });
}
