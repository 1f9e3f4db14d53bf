// Clinical segments: OBX → Observation (every OBX-2 value type), AL1 →
// AllergyIntolerance, DG1 → Condition, PR1 → Procedure, IN1 → Coverage, FT1 →
// ChargeItem (no IG map: mapped as peers do). Each resource carries an identifier
// that is stable across re-sends, used as its conditional key.

import type { Resource } from "../../../platform/fhir-resource";
import { toFhirTime } from "../datetime";
import type { Hl7Segment } from "../message";
import { type ConversionContext, identifierCondition, type Identifier, type Ref } from "./context";
import {
  type CodeableConcept,
  clean,
  cwe,
  cxIdentifier,
  dateTime,
  decimal,
  eiIdentifier,
  plainText,
  type Quantity,
  reps,
  str,
  validPeriod,
  withUnits,
  xadAddress,
  xpnName,
  xtnContact,
} from "./datatypes";
import { organizationXon, practitioner, location } from "./people";
import {
  ALLERGY_CATEGORY,
  ALLERGY_CRITICALITY,
  ALLERGY_REACTION_SEVERITY,
  ALLERGY_TYPE,
  OBSERVATION_STATUS,
  V2,
  V3,
} from "./vocab";
import { lookupTable } from "../../../platform/object-keys";

export interface Subject {
  patient: Ref;
  /** The identifier the patient is matched on, used to key patient-scoped content. */
  patientKey: Identifier;
  encounter?: Ref;
}

const keyOf = (id: Identifier) => `${id.system}|${id.value}`;

/**
 * A content-derived identifier for resources the message gives no id to:
 * system `{base}:key:{type}`, value `{patient id}@{patient system}/{parts}` (no "|", which search would need escaped).
 */
function contentIdentifier(ctx: ConversionContext, type: string, subject: Subject, parts: (string | undefined)[]): Identifier {
  return { system: ctx.uri("key", type), value: [`${subject.patientKey.value}@${subject.patientKey.system}`, ...parts.map((p) => p ?? "")].join("/") };
}

// ---------------------------------------------------------------- OBX

export interface ObservationOptions {
  /** Identifier prefix of the order the OBX belongs to (filler or placer number), if any. */
  order?: Identifier;
  basedOn?: Ref;
  /** Effective time to fall back on (OBR-7). */
  effective?: string;
  category?: CodeableConcept;
  mode: "update" | "create";
  /** Position of the OBX among the message's OBX segments (1-based), for keys without set id. */
  index: number;
}

const OBS_VALUE_EXT = "http://hl7.org/fhir/5.0/StructureDefinition/extension-Observation.valueAttachment"; // R5 Observation.valueAttachment as a cross-version extension
const COMPARATORS = new Set(["<", "<=", ">=", ">"]);

/** OBX-5 (with OBX-2 and OBX-6) → the Observation value[x] (and extensions for ED/RP). */
function observationValue(ctx: ConversionContext, obx: Hl7Segment, out: Resource): void {
  const type = (str(obx.field(2), 1) ?? "").toUpperCase();
  const field = obx.field(5);
  const values = reps(field);
  const first = values[0];
  if (!first) return;
  const units = obx.field(6).rep(1);
  const asString = () => {
    const lines = values.map((v) => (type === "FT" || type === "TX" || type === "ST" ? clean(v.text.replace(new RegExp(`\\${obx.delimiters.component}+$`), "")) : plainText(v)));
    const s = lines.filter(Boolean).join("\n");
    if (s) out.valueString = s;
  };
  switch (type) {
    case "NM": {
      const n = decimal(str(first, 1));
      if (n === undefined) {
        asString();
        return;
      }
      out.valueQuantity = withUnits(ctx, { value: n }, units);
      return;
    }
    case "SN": {
      const comp = str(first, 1);
      const n1 = decimal(str(first, 2));
      const sep = str(first, 3);
      const n2 = decimal(str(first, 4));
      if (comp === "<>" || n1 === undefined) {
        asString();
        return;
      }
      if (sep === ":" || sep === "/") {
        if (n2 === undefined) {
        asString();
        return;
      }
        out.valueRatio = { numerator: withUnits(ctx, { value: n1 }, units), denominator: { value: n2 } };
        return;
      }
      if (sep === "-") {
        if (n2 === undefined) {
        asString();
        return;
      }
        out.valueRange = { low: withUnits(ctx, { value: n1 }, units), high: withUnits(ctx, { value: n2 }, units) };
        return;
      }
      if (sep) {
        asString();
        return;
      }
      const q: Quantity = { value: n1 };
      if (comp && comp !== "=") {
        if (!COMPARATORS.has(comp)) {
        asString();
        return;
      }
        q.comparator = comp;
      }
      out.valueQuantity = withUnits(ctx, q, units);
      return;
    }
    case "CE":
    case "CWE":
    case "CNE":
    case "CF":
    case "IS":
    case "ID": {
      const c = type === "IS" || type === "ID" ? (str(first, 1) ? { coding: [{ code: str(first, 1) }] } : undefined) : cwe(ctx, first);
      if (c) out.valueCodeableConcept = c;
      return;
    }
    case "DT":
    case "DTM":
    case "TS": {
      const d = dateTime(ctx, str(first, 1));
      if (d) out.valueDateTime = d;
      else asString();
      return;
    }
    case "TM": {
      const t = toFhirTime(str(first, 1) ?? "");
      if (t) out.valueTime = t;
      else asString();
      return;
    }
    case "DR": {
      const p = validPeriod({ start: dateTime(ctx, str(first.part(1), 1)), end: dateTime(ctx, str(first.part(2), 1)) });
      if (p) out.valuePeriod = p;
      return;
    }
    case "NR": {
      const low = decimal(str(first, 1));
      const high = decimal(str(first, 2));
      if (low === undefined && high === undefined) {
        asString();
        return;
      }
      out.valueRange = { low: low === undefined ? undefined : withUnits(ctx, { value: low }, units), high: high === undefined ? undefined : withUnits(ctx, { value: high }, units) };
      return;
    }
    case "ED": {
      const encoding = str(first, 4)?.toUpperCase();
      const data = first.part(5).text.trim();
      const [major, minor] = [str(first, 2), str(first, 3)];
      const contentType = major && minor && /^[a-z]+$/i.test(major) ? `${major.toLowerCase()}/${minor.toLowerCase()}` : "application/octet-stream";
      if (!data) return;
      let b64: string | undefined;
      if (encoding === "BASE64" && /^[A-Za-z0-9+/=\s]+$/.test(data)) b64 = data.replace(/\s+/g, "");
      else if (encoding === "A" || encoding === undefined) b64 = base64(data);
      else if (encoding === "HEX" && /^([0-9A-Fa-f]{2})+$/.test(data)) b64 = base64Bytes(Uint8Array.from(data.match(/../g)!.map((h) => Number.parseInt(h, 16))));
      if (!b64) {
        asString();
        return;
      }
      (out.extension as unknown[]).push({ url: OBS_VALUE_EXT, valueAttachment: { contentType, data: b64 } });
      return;
    }
    case "RP": {
      const url = str(first, 1);
      if (url && /^[a-z][a-z0-9+.-]*:\S+$/i.test(url)) {
        (out.extension as unknown[]).push({ url: OBS_VALUE_EXT, valueAttachment: { url } });
        return;
      }
      asString();
      return;
    }
    default:
      {
        asString();
        return;
      }
  }
}

function referenceRange(ctx: ConversionContext, obx: Hl7Segment): unknown[] | undefined {
  const text = clean(obx.field(7).text);
  if (!text) return undefined;
  const m = /^\s*(-?\d+(?:\.\d+)?)\s*-\s*(-?\d+(?:\.\d+)?)\s*$/.exec(text);
  const units = obx.field(6).rep(1);
  if (m) return [{ low: withUnits(ctx, { value: Number(m[1]) }, units), high: withUnits(ctx, { value: Number(m[2]) }, units), text }];
  return [{ text }];
}

/** OBX → Observation. Keyed by OBX-21, else by the order's number and OBX-1 (or position), else by the message. */
export function observation(ctx: ConversionContext, obx: Hl7Segment, subject: Subject, opts: ObservationOptions, notes: string[]): Ref {
  const setId = str(obx.field(1), 1);
  const subId = str(obx.field(4), 1);
  const own = eiIdentifier(ctx, obx.field(21).rep(1), "FILL");
  const local = `${setId ?? `#${opts.index}`}${subId ? `.${subId}` : ""}`;
  const key: Identifier =
    own ?? (opts.order ? { system: opts.order.system, value: `${opts.order.value}-${local}` } : ctx.messageIdentifier(`OBX/${opts.index}`));
  // a set id used twice in one order (or a repeated OBX-21) must not merge two observations
  const base = key.value;
  for (let n = 2; ctx.existing("Observation", identifierCondition(key)!); n++) key.value = `${base}/${n}`;
  const statusCode = str(obx.field(11), 1)?.toUpperCase();
  const status = (statusCode && OBSERVATION_STATUS[statusCode]) || "unknown";
  const performer: unknown[] = [];
  for (const r of reps(obx.field(16))) {
    const p = practitioner(ctx, r);
    if (p) performer.push(p);
  }
  const org = organizationXon(ctx, obx.field(23).rep(1), { address: xadAddress(ctx, obx.field(24).rep(1)) });
  if (org) performer.push(org);
  const interpretation = reps(obx.field(8)).map((r) => {
    const c = cwe(ctx, r, V3("ObservationInterpretation"));
    if (c?.coding) for (const cd of c.coding) if (cd.system === V2("0078")) cd.system = V3("ObservationInterpretation");
    return c;
  });
  const resource: Resource = {
    resourceType: "Observation",
    extension: [],
    identifier: [key],
    basedOn: opts.basedOn ? [opts.basedOn] : undefined,
    status,
    category: opts.category ? [opts.category] : undefined,
    code: cwe(ctx, obx.field(3).rep(1)) ?? { text: `OBX ${local}` },
    subject: subject.patient,
    encounter: subject.encounter,
    effectiveDateTime: dateTime(ctx, str(obx.field(14), 1)) ?? opts.effective,
    performer,
    interpretation,
    method: cwe(ctx, obx.field(17).rep(1)),
    bodySite: cwe(ctx, obx.field(20).rep(1)),
    referenceRange: referenceRange(ctx, obx),
    note: notes.length ? notes.map((text) => ({ text })) : undefined,
  };
  observationValue(ctx, obx, resource);
  const hasValue = Object.keys(resource).some((k) => k.startsWith("value"));
  if (!hasValue && statusCode === "N") resource.dataAbsentReason = { coding: [{ system: "http://terminology.hl7.org/CodeSystem/data-absent-reason", code: "not-asked" }] };
  if (!hasValue && statusCode === "X") resource.dataAbsentReason = { coding: [{ system: "http://terminology.hl7.org/CodeSystem/data-absent-reason", code: "not-performed" }] };
  const ref = ctx.add(resource, opts.mode, `Observation|${keyOf(key)}`, identifierCondition(key));
  return { reference: ref };
}

// ---------------------------------------------------------------- AL1

/** AL1 → AllergyIntolerance, keyed by the patient and the allergen. */
export function allergy(ctx: ConversionContext, al1: Hl7Segment, subject: Subject): Ref | undefined {
  const code = cwe(ctx, al1.field(3).rep(1));
  if (!code) return undefined;
  const typeCode = str(al1.field(2), 1)?.toUpperCase();
  const severity = str(al1.field(4), 1)?.toUpperCase();
  const reactions = reps(al1.field(5)).map((r) => clean(r.text)).filter(Boolean);
  const c0 = code.coding?.[0];
  const key = contentIdentifier(ctx, "AllergyIntolerance", subject, [c0?.system, c0?.code ?? code.text]);
  const resource: Resource = {
    resourceType: "AllergyIntolerance",
    identifier: [key],
    clinicalStatus: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/allergyintolerance-clinical", code: "active" }] },
    type: typeCode ? ALLERGY_TYPE[typeCode] : undefined,
    category: typeCode && ALLERGY_CATEGORY[typeCode] ? [ALLERGY_CATEGORY[typeCode]] : undefined,
    criticality: severity ? ALLERGY_CRITICALITY[severity] : undefined,
    code,
    patient: subject.patient,
    encounter: subject.encounter,
    onsetDateTime: dateTime(ctx, str(al1.field(6), 1)),
    reaction: reactions.length
      ? [{ manifestation: reactions.map((text) => ({ text })), severity: severity ? ALLERGY_REACTION_SEVERITY[severity] : undefined }]
      : undefined,
  };
  const ref = ctx.add(resource, "update", `AllergyIntolerance|${keyOf(key)}`, identifierCondition(key));
  return { reference: ref };
}

// ---------------------------------------------------------------- DG1

/** DG1 → Condition (encounter-diagnosis when there is an encounter), keyed by DG1-20 or patient + code. */
export function condition(ctx: ConversionContext, dg1: Hl7Segment, subject: Subject): Ref | undefined {
  const code = cwe(ctx, dg1.field(3).rep(1));
  const description = str(dg1.field(4), 1);
  if (!code && !description) return undefined;
  const cc = code ?? { text: description };
  if (description && !cc.text) cc.text = description;
  const own = eiIdentifier(ctx, dg1.field(20).rep(1));
  const c0 = cc.coding?.[0];
  const key = own ?? contentIdentifier(ctx, "Condition", subject, [c0?.system, c0?.code ?? cc.text]);
  const deleted = str(dg1.field(21), 1)?.toUpperCase() === "D";
  const resource: Resource = {
    resourceType: "Condition",
    identifier: [key],
    verificationStatus: deleted ? { coding: [{ system: "http://terminology.hl7.org/CodeSystem/condition-ver-status", code: "entered-in-error" }] } : undefined,
    category: [
      {
        coding: [
          subject.encounter
            ? { system: "http://terminology.hl7.org/CodeSystem/condition-category", code: "encounter-diagnosis", display: "Encounter Diagnosis" }
            : { system: "http://terminology.hl7.org/CodeSystem/condition-category", code: "problem-list-item", display: "Problem List Item" },
        ],
      },
    ],
    code: cc,
    subject: subject.patient,
    encounter: subject.encounter,
    onsetDateTime: dateTime(ctx, str(dg1.field(5), 1)),
    recordedDate: dateTime(ctx, str(dg1.field(19), 1)),
    asserter: practitioner(ctx, reps(dg1.field(16))[0]),
  };
  if (!subject.encounter && !deleted) resource.clinicalStatus = { coding: [{ system: "http://terminology.hl7.org/CodeSystem/condition-clinical", code: "active" }] };
  const ref = ctx.add(resource, "update", `Condition|${keyOf(key)}`, identifierCondition(key));
  return { reference: ref };
}

// ---------------------------------------------------------------- PR1

/** PR1 → Procedure, keyed by PR1-19 or patient + code + date. */
export function procedure(ctx: ConversionContext, pr1: Hl7Segment, subject: Subject): Ref | undefined {
  const code = cwe(ctx, pr1.field(3).rep(1));
  const description = str(pr1.field(4), 1);
  if (!code && !description) return undefined;
  const cc = code ?? { text: description };
  if (description && !cc.text) cc.text = description;
  const whenRaw = str(pr1.field(5), 1);
  const when = dateTime(ctx, whenRaw);
  const minutes = decimal(str(pr1.field(7), 1));
  const own = eiIdentifier(ctx, pr1.field(19).rep(1));
  const c0 = cc.coding?.[0];
  const key = own ?? contentIdentifier(ctx, "Procedure", subject, [c0?.system, c0?.code ?? cc.text, whenRaw]);
  const performer: unknown[] = [];
  const perf = (n: number, sct?: [string, string]) => {
    for (const r of reps(pr1.field(n))) {
      const actor = practitioner(ctx, r);
      if (actor) performer.push({ actor, function: sct ? { coding: [{ system: "http://snomed.info/sct", code: sct[0], display: sct[1] }] } : undefined });
    }
  };
  perf(8, ["88189002", "Anesthesiologist"]);
  perf(11, ["304292004", "Surgeon"]);
  perf(12);
  let performedPeriod: unknown;
  let performedDateTime: string | undefined = when;
  if (when && minutes !== undefined && when.includes("T")) {
    const end = new Date(Date.parse(when) + minutes * 60000);
    if (Number.isFinite(end.getTime())) {
      performedPeriod = { start: when, end: end.toISOString().replace(".000Z", "Z") };
      performedDateTime = undefined;
    }
  }
  const resource: Resource = {
    resourceType: "Procedure",
    identifier: [key],
    status: "completed",
    category: cwe(ctx, pr1.field(6).rep(1), V2("0230")),
    code: cc,
    subject: subject.patient,
    encounter: subject.encounter,
    performedDateTime,
    performedPeriod,
    performer,
    location: location(ctx, pr1.field(23).rep(1)),
    reasonCode: reps(pr1.field(15)).map((r) => cwe(ctx, r)),
  };
  const ref = ctx.add(resource, "update", `Procedure|${keyOf(key)}`, identifierCondition(key));
  return { reference: ref };
}

// ---------------------------------------------------------------- IN1

/** IN1 → Coverage (payor Organization from IN1-3/4/5/7), keyed by policy number or patient + plan + company. */
export function coverage(ctx: ConversionContext, in1: Hl7Segment, subject: Subject): Ref | undefined {
  const plan = cwe(ctx, in1.field(2).rep(1));
  const companyId = cxIdentifier(ctx, in1.field(3).rep(1));
  const companyName = str(in1.field(4), 1);
  const policy = str(in1.field(36), 1);
  if (!plan && !companyId && !companyName && !policy) return undefined;
  let payor: Ref | undefined;
  if (companyId || companyName) {
    const ident = companyId ?? { system: ctx.uri("organization-name"), value: companyName! };
    const org: Resource = {
      resourceType: "Organization",
      identifier: [ident],
      name: companyName,
      address: reps(in1.field(5)).map((r) => xadAddress(ctx, r)),
      telecom: reps(in1.field(7)).map((r) => xtnContact(ctx, r)),
    };
    payor = { reference: ctx.add(org, "create", `Organization|${keyOf(ident)}`, identifierCondition(ident)), display: companyName };
  }
  const planValue = str(in1.field(2), 1);
  const identifiers: Identifier[] = [];
  if (policy) identifiers.push({ system: companyId ? `${companyId.system}` : ctx.defaultSystem, value: policy, type: { coding: [{ system: V2("0203"), code: "MB" }] } });
  const key = identifiers[0] ?? contentIdentifier(ctx, "Coverage", subject, [planValue, companyId?.value ?? companyName, str(in1.field(1), 1)]);
  if (!identifiers[0]) identifiers.push(key);
  const relCode = str(in1.field(17), 1)?.toUpperCase();
  const isSelf = relCode === "SEL" || relCode === "01" || relCode === "18";
  let subscriber: Ref | undefined;
  if (isSelf) subscriber = subject.patient;
  else {
    const name = xpnName(ctx, reps(in1.field(16))[0] ?? in1.field(16).rep(1));
    if (name) {
      const rpKey: Identifier = { system: ctx.uri("key", "RelatedPerson"), value: `${subject.patientKey.value}@${subject.patientKey.system}/IN1/${[name.family, ...(name.given ?? [])].join(" ")}` };
      const rp: Resource = { resourceType: "RelatedPerson", identifier: [rpKey], patient: subject.patient, name: [name], relationship: [cwe(ctx, in1.field(17).rep(1), V2("0063"))] };
      subscriber = { reference: ctx.add(rp, "update", `RelatedPerson|${keyOf(rpKey)}`, identifierCondition(rpKey)) };
    }
  }
  const resource: Resource = {
    resourceType: "Coverage",
    identifier: identifiers,
    status: "active",
    type: cwe(ctx, in1.field(15).rep(1), V2("0086")),
    subscriber,
    subscriberId: str(in1.field(49), 1) ?? policy,
    beneficiary: subject.patient,
    relationship: cwe(ctx, in1.field(17).rep(1), V2("0063")),
    period: validPeriod({ start: dateTime(ctx, str(in1.field(12), 1)), end: dateTime(ctx, str(in1.field(13), 1)) }),
    payor: [payor ?? subject.patient],
    class: planValue ? [{ type: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/coverage-class", code: "plan" }] }, value: planValue, name: str(in1.field(2), 2) }] : undefined,
  };
  const ref = ctx.add(resource, "update", `Coverage|${keyOf(key)}`, identifierCondition(key));
  return { reference: ref };
}

// ---------------------------------------------------------------- FT1

const FT1_TYPES: Readonly<Record<string, string>> = lookupTable({ CG: "Charge", CD: "Credit", PY: "Payment", AJ: "Adjustment" });

/** FT1 → ChargeItem (no official map; as peers do), keyed by FT1-2 or the message and set id. */
export function chargeItem(ctx: ConversionContext, ft1: Hl7Segment, subject: Subject, index: number): Ref {
  const txId = str(ft1.field(2), 1);
  const key: Identifier = txId ? { system: ctx.defaultSystem, value: txId } : ctx.messageIdentifier(`FT1/${str(ft1.field(1), 1) ?? `#${index}`}`);
  const code =
    cwe(ctx, ft1.field(7).rep(1)) ?? cwe(ctx, ft1.field(25).rep(1)) ?? (str(ft1.field(8), 1) ? { text: str(ft1.field(8), 1) } : { text: "unspecified charge" });
  const quantity = decimal(str(ft1.field(10), 1));
  const amount = ft1.field(11).rep(1).part(1);
  const value = decimal(str(amount, 1));
  const currency = str(amount, 2);
  const type = str(ft1.field(6), 1)?.toUpperCase();
  const performer: unknown[] = [];
  for (const r of reps(ft1.field(20))) {
    const actor = practitioner(ctx, r);
    if (actor) performer.push({ actor });
  }
  const orderedBy = practitioner(ctx, reps(ft1.field(21))[0]);
  const txDate = ft1.field(4).rep(1);
  const start = dateTime(ctx, str(txDate, 1));
  const end = dateTime(ctx, str(txDate, 2));
  const resource: Resource = {
    resourceType: "ChargeItem",
    identifier: [key],
    status: "billable",
    code,
    subject: subject.patient,
    context: subject.encounter,
    occurrenceDateTime: end ? undefined : start,
    occurrencePeriod: end ? validPeriod({ start, end }) : undefined,
    performer,
    enterer: orderedBy,
    enteredDate: dateTime(ctx, str(ft1.field(5), 1)),
    quantity: quantity !== undefined ? { value: quantity } : undefined,
    priceOverride: value !== undefined && currency && /^[A-Z]{3}$/.test(currency) ? { value, currency } : undefined,
    reason: reps(ft1.field(19)).map((r) => cwe(ctx, r)),
    note: type && FT1_TYPES[type] && type !== "CG" ? [{ text: `Transaction type: ${FT1_TYPES[type]}` }] : undefined,
  };
  const ref = ctx.add(resource, "update", `ChargeItem|${keyOf(key)}`, identifierCondition(key));
  return { reference: ref };
}

// ---------------------------------------------------------------- helpers

export function base64(text: string): string {
  return base64Bytes(new TextEncoder().encode(text));
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

export function base64Bytes(bytes: Uint8Array): string {
  let out = "";
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += B64[(n >> 18) & 63]! + B64[(n >> 12) & 63]! + B64[(n >> 6) & 63]! + B64[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out += `${B64[(n >> 18) & 63]}${B64[(n >> 12) & 63]}==`;
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += `${B64[(n >> 18) & 63]}${B64[(n >> 12) & 63]}${B64[(n >> 6) & 63]}=`;
  }
  return out;
}
