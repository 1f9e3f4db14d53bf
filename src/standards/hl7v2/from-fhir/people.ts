// Patient → PID (+ PD1), Encounter → PV1 (+ PV2), the replaced Patient → MRG: the
// converter's PID, PV1 and MRG maps (convert/people.ts, convert/index.ts) backwards.

import type { Resource } from "../../../platform/fhir-resource";
import { Hl7EncodingError } from "../errors";
import type { Hl7Segment } from "../message";
import { V3 } from "../convert/vocab";
import type { EncodeContext } from "./context";
import { codeOf, cwe, cx, dtm, identifierTyped, pl, xad, xcn, xon, xpn, xtn } from "./datatypes";
import { type Json, list, obj, text } from "./input";
import { ENCOUNTER_ROLES, PATIENT_CLASS, SEX_CODE } from "./vocab";
import { type Rep, repeat } from "./writer";

const SSN = "http://hl7.org/fhir/sid/us-ssn";
const EXT = "http://hl7.org/fhir/StructureDefinition/";

function extension(r: Json, name: string): Json | undefined {
  return list(r.extension).find((e) => e.url === `${EXT}${name}`);
}

/** The `code` sub-extension of a complex extension (citizenship, nationality). */
function codeExtension(e: Json): unknown {
  return list(e.extension).find((x) => x.url === "code")?.valueCodeableConcept;
}

/** Identifiers a message can carry: valued, and not made up by the converter from another message. */
export function realIdentifiers(ctx: EncodeContext, ids: unknown): Json[] {
  return list(ids).filter((i) => text(i.value) && !ctx.systems.isDerived(text(i.system)));
}

/** PID from a Patient. The identifier the Bundle entry is matched on comes first in PID-3. */
export function pid(ctx: EncodeContext, patient: Resource, what = "Patient"): Hl7Segment {
  ctx.input.use(patient);
  const ids = realIdentifiers(ctx, patient.identifier);
  const key = ctx.input.keyIdentifier(patient);
  if (key) ids.sort((a, b) => Number(b.system === key.system && b.value === key.value) - Number(a.system === key.system && a.value === key.value));
  // An SSN without an assigning authority is PID-19's, as the converter reads it; with one it is a PID-3 identifier.
  const ssn = ids.find((i) => i.system === SSN && !obj(i.assigner)?.display);
  const listed = ids.length > 1 && ssn ? ids.filter((i) => i !== ssn) : ids;
  if (listed.length === 0) throw new Hl7EncodingError("MISSING_VALUE", `${what}.identifier is required: PID-3 (patient identifier list) cannot be empty`, `${what}.identifier`);
  const names = list(patient.name).map((n) => xpn(ctx, n));
  if (!names.some(Boolean)) throw new Hl7EncodingError("MISSING_VALUE", `${what}.name (a family or given name) is required: PID-5 (patient name) cannot be empty`, `${what}.name`);
  const telecom = list(patient.telecom);
  const birthTime = list(obj(patient._birthDate)?.extension).find((e) => e.url === `${EXT}patient-birthTime`)?.valueDateTime;
  const multipleOrder = typeof patient.multipleBirthInteger === "number" ? patient.multipleBirthInteger : undefined;
  const multiple = multipleOrder !== undefined ? "Y" : typeof patient.multipleBirthBoolean === "boolean" ? (patient.multipleBirthBoolean ? "Y" : "N") : undefined;
  const deceased = typeof patient.deceasedBoolean === "boolean" ? (patient.deceasedBoolean ? "Y" : "N") : patient.deceasedDateTime ? "Y" : undefined;
  const birthPlace = obj(extension(patient, "patient-birthPlace")?.valueAddress);
  const gender = text(patient.gender);
  return ctx.segment("PID", {
    1: 1,
    3: repeat(listed.map((i) => cx(ctx, i))),
    5: repeat(names),
    6: text(extension(patient, "patient-mothersMaidenName")?.valueString),
    7: dtm(ctx, birthTime ?? patient.birthDate, `${what}.birthDate`),
    8: gender ? SEX_CODE[gender] : undefined,
    11: repeat(list(patient.address).map((a) => xad(ctx, a))),
    13: repeat(telecom.filter((t) => t.use !== "work").map((t) => xtn(ctx, t))),
    14: repeat(telecom.filter((t) => t.use === "work").map((t) => xtn(ctx, t))),
    15: cwe(ctx, obj(list(patient.communication)[0])?.language),
    16: cwe(ctx, patient.maritalStatus, { alias: { system: V3("MaritalStatus"), table: "0002" } }),
    17: cwe(ctx, extension(patient, "patient-religion")?.valueCodeableConcept),
    19: ssn && listed !== ids ? text(ssn.value) : undefined,
    23: text(birthPlace?.text) ?? ([...list(birthPlace?.line), birthPlace?.city, birthPlace?.country].filter((x) => typeof x === "string").join(" ") || undefined),
    24: multiple,
    25: multipleOrder,
    26: repeat(list(patient.extension).filter((e) => e.url === `${EXT}patient-citizenship`).map((e) => cwe(ctx, codeExtension(e)))),
    28: cwe(ctx, codeExtension(extension(patient, "patient-nationality") ?? {})),
    29: dtm(ctx, patient.deceasedDateTime, `${what}.deceasedDateTime`),
    30: deceased,
  });
}

/** PD1 from Patient.generalPractitioner (PD1-3 organizations, PD1-4 practitioners), when there is one. */
export function pd1(ctx: EncodeContext, patient: Resource): Hl7Segment | undefined {
  const orgs: Rep[] = [];
  const people: Rep[] = [];
  for (const ref of list(patient.generalPractitioner)) {
    const r = ctx.input.resolve(ref);
    if (r?.resourceType === "Organization") {
      const x = xon(ctx, ref);
      if (x) orgs.push(x);
    } else {
      const x = xcn(ctx, ref);
      if (x) people.push(x);
    }
  }
  if (orgs.length === 0 && people.length === 0) return undefined;
  return ctx.segment("PD1", { 3: repeat(orgs), 4: repeat(people) });
}

/** PV1-2 from Encounter.class. */
function patientClass(enc: Resource): string {
  const c = obj(enc.class);
  return PATIENT_CLASS[`${text(c?.system) ?? ""}|${text(c?.code) ?? ""}`] ?? "U";
}

function first<T>(ctx: EncodeContext, values: T[], where: string): T | undefined {
  if (values.length > 1) ctx.warn(`${where} has ${values.length} values: the HL7 field holds one, the first is written`);
  return values[0];
}

/** PV1 from an Encounter; without one, PV1-2 "N" (not applicable), which the converter reads as no visit. */
export function pv1(ctx: EncodeContext, enc: Resource | undefined): Hl7Segment {
  if (!enc) return ctx.segment("PV1", { 1: 1, 2: "N" });
  ctx.input.use(enc);
  const classCode = patientClass(enc);
  const ids = realIdentifiers(ctx, enc.identifier);
  const visit = identifierTyped(ids, "VN") ?? ids.find((i) => !obj(i.type));
  const alternate = ids.find((i) => i !== visit);
  // PV1-3 is the location in the status the converter gives PV1-3's; the others go by their status.
  const locations = list(enc.location);
  const assignedStatus = classCode === "P" ? "planned" : enc.status === "finished" ? "completed" : "active";
  const assigned = locations.find((l) => l.status === assignedStatus) ?? locations.find((l) => !l.status);
  const byStatus = (status: string) => locations.find((l) => l !== assigned && l.status === status)?.location;
  const participants: Record<number, Rep[]> = {};
  for (const p of list(enc.participant)) {
    const codes = list(p.type).map((t) => codeOf(t));
    const field = ENCOUNTER_ROLES.find(([code]) => codes.includes(code))?.[1];
    if (field === undefined) continue;
    const x = xcn(ctx, p.individual);
    if (x) participants[field] = [...(participants[field] ?? []), x];
  }
  const hosp = obj(enc.hospitalization) ?? {};
  const period = obj(enc.period);
  return ctx.segment("PV1", {
    1: 1,
    2: classCode,
    3: pl(ctx, assigned?.location),
    4: cwe(ctx, first(ctx, list(enc.type), "Encounter.type")),
    5: cx(ctx, obj(hosp.preAdmissionIdentifier)),
    6: pl(ctx, byStatus("completed")),
    7: repeat(participants[7] ?? []),
    8: repeat(participants[8] ?? []),
    9: repeat(participants[9] ?? []),
    10: cwe(ctx, enc.serviceType),
    11: pl(ctx, byStatus("active")),
    13: cwe(ctx, hosp.reAdmission),
    14: cwe(ctx, hosp.admitSource),
    15: repeat(list(hosp.specialArrangement).map((c) => cwe(ctx, c))),
    16: cwe(ctx, first(ctx, list(hosp.specialCourtesy), "Encounter.hospitalization.specialCourtesy")),
    17: repeat(participants[17] ?? []),
    19: cx(ctx, visit ? { ...visit, type: { coding: [{ code: "VN" }] } } : undefined),
    36: cwe(ctx, hosp.dischargeDisposition),
    38: cwe(ctx, first(ctx, list(hosp.dietPreference), "Encounter.hospitalization.dietPreference")),
    42: pl(ctx, byStatus("planned")),
    44: dtm(ctx, period?.start, "Encounter.period.start"),
    45: dtm(ctx, period?.end, "Encounter.period.end"),
    50: cx(ctx, alternate),
    52: repeat(participants[52] ?? []),
  });
}

/** PV2 from Encounter.reasonCode (PV2-3 admit reason), when there is one. */
export function pv2(ctx: EncodeContext, enc: Resource | undefined): Hl7Segment | undefined {
  const reason = enc ? list(enc.reasonCode)[0] : undefined;
  return reason ? ctx.segment("PV2", { 3: cwe(ctx, reason) }) : undefined;
}

/** MRG from the replaced Patient: every identifier in MRG-1, its name in MRG-7. */
export function mrg(ctx: EncodeContext, replaced: Resource): Hl7Segment {
  ctx.input.use(replaced);
  const ids = realIdentifiers(ctx, replaced.identifier);
  if (ids.length === 0) throw new Hl7EncodingError("MISSING_VALUE", "the replaced Patient's identifier is required: MRG-1 (prior patient identifier list) cannot be empty", "Patient.link.other.identifier");
  return ctx.segment("MRG", { 1: repeat(ids.map((i) => cx(ctx, i))), 7: repeat(list(replaced.name).map((n) => xpn(ctx, n))) });
}
