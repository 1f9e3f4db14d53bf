// Resources for the people, places and organizations a message names: PID → Patient,
// PV1/PV2 → Encounter, XCN → Practitioner, XON/HD → Organization, PL → Location,
// NK1 → RelatedPerson. References are resolved within the Bundle; practitioners,
// organizations and locations are created only when missing (POST ifNoneExist).

import type { Resource } from "../../../platform/fhir-resource";
import type { Hl7Segment, Hl7Value } from "../message";
import { type ConversionContext, identifierCondition, type Identifier, type Ref } from "./context";
import {
  authoritySystem,
  cwe,
  cxIdentifier,
  date,
  dateTime,
  hdSystem,
  type HumanName,
  plainText,
  reps,
  str,
  tableConcept,
  validPeriod,
  xadAddress,
  xcnName,
  xpnName,
  xtnContact,
} from "./datatypes";
import { ADMINISTRATIVE_SEX, ENCOUNTER_CLASS, ENCOUNTER_CLASS_UNKNOWN, EVENT_ENCOUNTER_STATUS, PATIENT_CLASS_STATUS, V2, V3 } from "./vocab";

function nameText(n: HumanName | undefined): string | undefined {
  if (!n) return undefined;
  return [...(n.prefix ?? []), ...(n.given ?? []), n.family, ...(n.suffix ?? [])].filter(Boolean).join(" ") || undefined;
}

/** XCN → Practitioner (create if missing), keyed by its identifier or, without one, by its name. */
export function practitioner(ctx: ConversionContext, xcn: Hl7Value | undefined): Ref | undefined {
  if (!xcn || xcn.isEmpty || xcn.isNull) return undefined;
  const name = xcnName(ctx, xcn);
  const value = str(xcn, 1);
  if (!value && !name) return undefined;
  const identifier: Identifier[] = [];
  if (value) {
    const typeCode = str(xcn, 13);
    identifier.push({
      system: hdSystem(ctx, xcn.part(9)) ?? ctx.defaultSystem,
      value,
      type: typeCode ? { coding: [{ system: V2("0203"), code: typeCode }] } : undefined,
    });
  } else {
    identifier.push({ system: ctx.uri("practitioner-name", ctx.defaultSystem), value: nameText(name) ?? "" });
  }
  const resource: Resource = { resourceType: "Practitioner", identifier, name: name ? [name] : undefined };
  const condition = identifierCondition(identifier[0]);
  const ref = ctx.add(resource, "create", `${identifier[0]!.system}|${identifier[0]!.value}`, condition);
  return { reference: ref, display: nameText(name) ?? value };
}

/** NDL (name ^ start ^ end ^ point of care ^ ...): its CNN name sits in subcomponents of NDL.1. */
export function practitionerFromCnn(ctx: ConversionContext, cnn: Hl7Value): Ref | undefined {
  const value = str(cnn, 1);
  const family = str(cnn, 2);
  if (!value && !family) return undefined;
  const name: HumanName = { family, given: [str(cnn, 3), str(cnn, 4)].filter((x): x is string => !!x), suffix: [str(cnn, 5)].filter((x): x is string => !!x), prefix: [str(cnn, 6)].filter((x): x is string => !!x) };
  const identifier: Identifier = value
    ? { system: authoritySystem(ctx, str(cnn, 9), str(cnn, 10), str(cnn, 11)) ?? ctx.defaultSystem, value }
    : { system: ctx.uri("practitioner-name", ctx.defaultSystem), value: nameText(name) ?? "" };
  const resource: Resource = { resourceType: "Practitioner", identifier: [identifier], name: [name] };
  const ref = ctx.add(resource, "create", `${identifier.system}|${identifier.value}`, identifierCondition(identifier));
  return { reference: ref, display: nameText(name) ?? value };
}

/** XON → Organization (create if missing). */
export function organizationXon(ctx: ConversionContext, xon: Hl7Value | undefined, extra?: { address?: unknown; telecom?: unknown }): Ref | undefined {
  if (!xon || xon.isEmpty || xon.isNull) return undefined;
  const name = str(xon, 1);
  const idValue = str(xon, 10) ?? str(xon, 3);
  if (!name && !idValue) return undefined;
  const identifier: Identifier = idValue
    ? { system: hdSystem(ctx, xon.part(6)) ?? ctx.defaultSystem, value: idValue }
    : { system: ctx.uri("organization-name"), value: name! };
  const resource: Resource = { resourceType: "Organization", identifier: [identifier], name, address: extra?.address ? [extra.address] : undefined, telecom: extra?.telecom ? [extra.telecom] : undefined };
  const ref = ctx.add(resource, "create", `${identifier.system}|${identifier.value}`, identifierCondition(identifier));
  return { reference: ref, display: name ?? idValue };
}

/** HD (namespace ^ universal id ^ type) → Organization (create if missing): MSH-4, PL.4... */
export function organizationHd(ctx: ConversionContext, hd: Hl7Value | undefined): Ref | undefined {
  if (!hd || hd.isEmpty) return undefined;
  const ns = str(hd, 1);
  const uid = str(hd, 2);
  if (!ns && !uid) return undefined;
  const identifier: Identifier = uid
    ? { system: "urn:ietf:rfc:3986", value: authoritySystem(ctx, undefined, uid, str(hd, 3)) ?? uid }
    : { system: ctx.uri("organization-name"), value: ns! };
  const resource: Resource = { resourceType: "Organization", identifier: [identifier], name: ns ?? uid };
  const ref = ctx.add(resource, "create", `${identifier.system}|${identifier.value}`, identifierCondition(identifier));
  return { reference: ref, display: ns ?? uid };
}

/** HD → Device (create if missing): the sending application (MSH-3). */
export function deviceHd(ctx: ConversionContext, hd: Hl7Value | undefined): Ref | undefined {
  if (!hd || hd.isEmpty) return undefined;
  const ns = str(hd, 1);
  const uid = str(hd, 2);
  if (!ns && !uid) return undefined;
  const identifier: Identifier = { system: ctx.uri("application"), value: uid ? `${ns ?? ""}^${uid}` : ns! };
  const resource: Resource = { resourceType: "Device", identifier: [identifier], deviceName: ns ? [{ name: ns, type: "user-friendly-name" }] : undefined };
  const ref = ctx.add(resource, "create", `${identifier.system}|${identifier.value}`, identifierCondition(identifier));
  return { reference: ref, display: ns ?? uid };
}

/**
 * PL → Location (create if missing): one Location per distinct point of care / room /
 * bed / facility / building / floor combination, named by its parts and identified by
 * them under the facility's system (PL.4) or the sending facility's.
 */
export function location(ctx: ConversionContext, pl: Hl7Value | undefined): Ref | undefined {
  if (!pl || pl.isEmpty || pl.isNull) return undefined;
  const parts = [str(pl, 1), str(pl, 2), str(pl, 3), str(pl.part(4), 1) ?? str(pl.part(4), 2), str(pl, 7), str(pl, 8)];
  if (!parts.some(Boolean)) return undefined;
  const [poc, room, bed, facility, building, floor] = parts;
  const description = str(pl, 9);
  const name = [facility, building, floor, poc, room, bed].filter(Boolean).join(" / ");
  const facilitySystem = hdSystem(ctx, pl.part(4));
  const identifier: Identifier = { system: facilitySystem ? `${facilitySystem}` : ctx.defaultSystem, value: parts.map((p) => p ?? "").join("^").replace(/\^+$/, "") };
  const physical = bed ? "bd" : room ? "ro" : poc ? "wa" : floor ? "lvl" : building ? "bu" : "si";
  const resource: Resource = {
    resourceType: "Location",
    identifier: [identifier],
    name,
    description,
    mode: "instance",
    physicalType: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/location-physical-type", code: physical }] },
    managingOrganization: pl.part(4).isEmpty ? undefined : organizationHd(ctx, pl.part(4)),
  };
  const ref = ctx.add(resource, "create", `${identifier.system}|${identifier.value}`, identifierCondition(identifier));
  return { reference: ref, display: name };
}

// ---------------------------------------------------------------- Patient

const V3_MARITAL = new Set(["A", "D", "I", "L", "M", "P", "S", "T", "U", "W"]);

export interface PatientResult {
  ref: Ref;
  /** The identifier the Patient is matched on. */
  key: Identifier;
  resource: Resource;
}

/** The identifier a PID is matched on: the first PID-3 MR, else the first PID-3, PID-2, PID-4. */
export function patientKey(ctx: ConversionContext, pid: Hl7Segment): Identifier | undefined {
  const ids = reps(pid.field(3)).map((r) => cxIdentifier(ctx, r)).filter((x): x is Identifier => !!x);
  const mr = reps(pid.field(3)).findIndex((r) => str(r, 5) === "MR");
  if (mr >= 0 && ids[mr]) return ids[mr];
  return ids[0] ?? cxIdentifier(ctx, pid.field(2).rep(1)) ?? cxIdentifier(ctx, pid.field(4).rep(1));
}

/** PID (+ PD1) → Patient, written per options.patientMode. */
export function patient(ctx: ConversionContext, pid: Hl7Segment, mode: "update" | "create", pd1?: Hl7Segment, keyPrefix = "Patient"): PatientResult {
  const identifiers: Identifier[] = [];
  for (const n of [2, 3, 4]) for (const r of reps(pid.field(n))) {
    const id = cxIdentifier(ctx, r);
    if (id && !identifiers.some((x) => x.system === id.system && x.value === id.value)) identifiers.push(id);
  }
  const ssn = str(pid.field(19), 1);
  if (ssn) identifiers.push({ system: "http://hl7.org/fhir/sid/us-ssn", value: ssn, type: { coding: [{ system: V2("0203"), code: "SS" }] } });
  let key = patientKey(ctx, pid);
  if (!key) {
    key = ctx.messageIdentifier("PID");
    identifiers.push(key);
  }
  const names = [...reps(pid.field(5)), ...reps(pid.field(9))].map((r) => xpnName(ctx, r));
  const extension: unknown[] = [];
  const mother = reps(pid.field(6))[0];
  const motherName = mother ? str(mother.part(1), 1) : undefined;
  if (motherName) extension.push({ url: "http://hl7.org/fhir/StructureDefinition/patient-mothersMaidenName", valueString: motherName });
  const religion = cwe(ctx, pid.field(17).rep(1), V2("0006"));
  if (religion) extension.push({ url: "http://hl7.org/fhir/StructureDefinition/patient-religion", valueCodeableConcept: religion });
  const birthPlace = str(pid.field(23), 1);
  if (birthPlace) extension.push({ url: "http://hl7.org/fhir/StructureDefinition/patient-birthPlace", valueAddress: { text: birthPlace } });
  for (const r of reps(pid.field(26))) {
    const c = cwe(ctx, r);
    if (c) extension.push({ url: "http://hl7.org/fhir/StructureDefinition/patient-citizenship", extension: [{ url: "code", valueCodeableConcept: c }] });
  }
  const nationality = cwe(ctx, pid.field(28).rep(1));
  if (nationality) extension.push({ url: "http://hl7.org/fhir/StructureDefinition/patient-nationality", extension: [{ url: "code", valueCodeableConcept: nationality }] });

  const birthRaw = str(pid.field(7), 1);
  const birthDate = date(ctx, birthRaw);
  const birthTime = birthRaw && birthRaw.length > 8 && birthDate ? dateTime(ctx, birthRaw) : undefined;
  const sex = str(pid.field(8), 1);
  const telecom = [
    ...reps(pid.field(13)).map((r) => xtnContact(ctx, r, "home")),
    ...reps(pid.field(14)).map((r) => xtnContact(ctx, r, "work")),
  ];
  const language = cwe(ctx, pid.field(15).rep(1));
  const marital = cwe(ctx, pid.field(16).rep(1), V3("MaritalStatus"));
  // v2 table 0002 and v3 MaritalStatus share codes A D I L M P S T U W: only those move to the v3 system
  if (marital?.coding) {
    for (const c of marital.coding) {
      if (c.system === V3("MaritalStatus") && !V3_MARITAL.has(c.code ?? "")) c.system = V2("0002");
      else if (c.system === V2("0002") && V3_MARITAL.has(c.code ?? "")) c.system = V3("MaritalStatus");
    }
  }
  const deathRaw = str(pid.field(29), 1);
  const deathInd = str(pid.field(30), 1);
  const multiple = str(pid.field(24), 1);
  const order = Number(str(pid.field(25), 1));
  const gp = pd1 ? reps(pd1.field(4)).map((r) => practitioner(ctx, r)).filter(Boolean) : [];
  const gpOrg = pd1 ? reps(pd1.field(3)).map((r) => organizationXon(ctx, r)).filter(Boolean) : [];
  const resource: Resource = {
    resourceType: "Patient",
    extension,
    identifier: identifiers,
    name: names,
    telecom,
    gender: sex ? (ADMINISTRATIVE_SEX[sex.toUpperCase()] ?? "unknown") : undefined,
    birthDate,
    _birthDate: birthTime ? { extension: [{ url: "http://hl7.org/fhir/StructureDefinition/patient-birthTime", valueDateTime: birthTime }] } : undefined,
    deceasedDateTime: deathRaw ? dateTime(ctx, deathRaw) : undefined,
    deceasedBoolean: !deathRaw && (deathInd === "Y" || deathInd === "N") ? deathInd === "Y" : undefined,
    address: reps(pid.field(11)).map((r) => xadAddress(ctx, r)),
    maritalStatus: marital,
    multipleBirthInteger: Number.isInteger(order) && order > 0 ? order : undefined,
    multipleBirthBoolean: !(Number.isInteger(order) && order > 0) && (multiple === "Y" || multiple === "N") ? multiple === "Y" : undefined,
    communication: language ? [{ language }] : undefined,
    generalPractitioner: [...gp, ...gpOrg],
  };
  const condition = identifierCondition(key);
  const ref = ctx.add(resource, mode, `${keyPrefix}|${key.system}|${key.value}`, condition);
  const display = nameText(names.find((n): n is HumanName => !!n));
  return { ref: { reference: ref, display }, key, resource };
}

// ---------------------------------------------------------------- Encounter

/** PV1 (+ PV2) → Encounter: keyed by the visit number (PV1-19), else by an identifier derived from the message. */
export function encounter(
  ctx: ConversionContext,
  pv1: Hl7Segment,
  pv2: Hl7Segment | undefined,
  subject: Ref,
  mode: "update" | "create",
  event?: string,
): { ref: Ref; resource: Resource } {
  const classCode = str(pv1.field(2), 1)?.toUpperCase();
  const visit = cxIdentifier(ctx, pv1.field(19).rep(1));
  if (visit) visit.type = { coding: [{ system: V2("0203"), code: "VN", display: "Visit number" }] };
  const alternate = cxIdentifier(ctx, pv1.field(50).rep(1));
  const derived = visit ? undefined : ctx.messageIdentifier("PV1");
  const discharge = dateTime(ctx, str(pv1.field(45), 1));
  let status = event ? EVENT_ENCOUNTER_STATUS[event] : undefined;
  if (!status) status = discharge ? "finished" : classCode ? (PATIENT_CLASS_STATUS[classCode] ?? "unknown") : "unknown";
  const participant: unknown[] = [];
  const roles: [number, string, string][] = [
    [7, "ATND", "attender"],
    [8, "REF", "referrer"],
    [9, "CON", "consultant"],
    [17, "ADM", "admitter"],
    [52, "PART", "Participation"],
  ];
  for (const [n, code, display] of roles) {
    for (const r of reps(pv1.field(n))) {
      const who = practitioner(ctx, r);
      if (who) participant.push({ type: [{ coding: [{ system: V3("ParticipationType"), code, display }] }], individual: who });
    }
  }
  const locations: unknown[] = [];
  const loc = (n: number, st: string) => {
    const l = location(ctx, pv1.field(n).rep(1));
    if (l) locations.push({ location: l, status: st });
  };
  loc(3, classCode === "P" ? "planned" : status === "finished" ? "completed" : "active");
  loc(6, "completed");
  loc(11, "active");
  loc(42, "planned");
  const admitReason = pv2 ? cwe(ctx, pv2.field(3).rep(1)) : undefined;
  const period = validPeriod({ start: dateTime(ctx, str(pv1.field(44), 1)), end: discharge });
  const resource: Resource = {
    resourceType: "Encounter",
    identifier: [visit, alternate, derived],
    status,
    class: (classCode && ENCOUNTER_CLASS[classCode]) || ENCOUNTER_CLASS_UNKNOWN,
    type: reps(pv1.field(4)).map((r) => cwe(ctx, r, V2("0007"))),
    serviceType: cwe(ctx, pv1.field(10).rep(1), V2("0069")),
    subject,
    participant,
    period,
    reasonCode: admitReason ? [admitReason] : undefined,
    hospitalization: {
      preAdmissionIdentifier: cxIdentifier(ctx, pv1.field(5).rep(1)),
      admitSource: cwe(ctx, pv1.field(14).rep(1), V2("0023")),
      reAdmission: cwe(ctx, pv1.field(13).rep(1), V2("0092")),
      specialArrangement: reps(pv1.field(15)).map((r) => cwe(ctx, r, V2("0009"))),
      specialCourtesy: reps(pv1.field(16)).map((r) => cwe(ctx, r, V2("0099"))),
      dietPreference: reps(pv1.field(38)).map((r) => cwe(ctx, r, V2("0114"))),
      dischargeDisposition: cwe(ctx, pv1.field(36).rep(1), V2("0112")),
    },
    location: locations,
  };
  const key = visit ?? derived!;
  const ref = ctx.add(resource, visit ? mode : "create", `Encounter|${key.system}|${key.value}`, identifierCondition(key));
  return { ref: { reference: ref }, resource };
}

// ---------------------------------------------------------------- RelatedPerson

/** NK1 → RelatedPerson, keyed by NK1-12/NK1-33 or by the patient, name and relationship. */
export function relatedPerson(ctx: ConversionContext, nk1: Hl7Segment, patientRef: Ref, patientKeyId: Identifier): Ref | undefined {
  const names = [...reps(nk1.field(2)), ...reps(nk1.field(30))].map((r) => xpnName(ctx, r)).filter(Boolean) as HumanName[];
  const relationship = [cwe(ctx, nk1.field(3).rep(1), V2("0063")), cwe(ctx, nk1.field(7).rep(1), V2("0131"))];
  const identifiers = [...reps(nk1.field(12)), ...reps(nk1.field(33))].map((r) => cxIdentifier(ctx, r)).filter((x): x is Identifier => !!x);
  const orgName = str(nk1.field(13), 1);
  if (names.length === 0 && identifiers.length === 0 && !orgName) return undefined;
  const contentKey = `${patientKeyId.value}@${patientKeyId.system}/${nameText(names[0]) ?? orgName}/${plainText(nk1.field(3).rep(1)) ?? ""}`;
  const key = identifiers[0] ?? { system: ctx.uri("key", "RelatedPerson"), value: contentKey };
  if (!identifiers[0]) identifiers.push(key);
  const sex = str(nk1.field(15), 1);
  const language = cwe(ctx, nk1.field(20).rep(1));
  const resource: Resource = {
    resourceType: "RelatedPerson",
    identifier: identifiers,
    patient: patientRef,
    relationship,
    name: names.length ? names : orgName ? [{ text: orgName }] : undefined,
    telecom: [
      ...reps(nk1.field(5)).map((r) => xtnContact(ctx, r)),
      ...reps(nk1.field(6)).map((r) => xtnContact(ctx, r, "work")),
      ...reps(nk1.field(31)).map((r) => xtnContact(ctx, r)),
      ...reps(nk1.field(40)).map((r) => xtnContact(ctx, r)),
      ...reps(nk1.field(41)).map((r) => xtnContact(ctx, r)),
    ],
    gender: sex ? (ADMINISTRATIVE_SEX[sex.toUpperCase()] ?? "unknown") : undefined,
    birthDate: date(ctx, str(nk1.field(16), 1)),
    address: [...reps(nk1.field(4)), ...reps(nk1.field(32))].map((r) => xadAddress(ctx, r)),
    period: validPeriod({ start: dateTime(ctx, str(nk1.field(8), 1)), end: dateTime(ctx, str(nk1.field(9), 1)) }),
    communication: language ? [{ language }] : undefined,
  };
  const ref = ctx.add(resource, "update", `RelatedPerson|${key.system}|${key.value}`, identifierCondition(key));
  return { reference: ref, display: nameText(names[0]) };
}

export { tableConcept };
