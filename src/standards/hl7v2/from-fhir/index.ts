// FHIR R4 → HL7 v2: ADT (A01, A03, A04, A08, A40), ORU^R01, ORM^O01, OML^O21, SIU^S12
// and MDM^T02 (T01 for a document known without its content) built from a Bundle (or one resource), the reverse of the V2-to-FHIR
// mappings in convert/. Pure: no I/O, no clock except MSH-7's default, no store; what
// the input does not hold is not in the message. A message the input cannot make (no
// Patient for ADT...) is an Hl7EncodingError naming what is missing.

import type { Resource } from "../../../platform/fhir-resource";
import { Hl7EncodingError } from "../errors";
import { DEFAULT_DELIMITERS, type Delimiters } from "../escape";
import { Hl7Message, type Hl7Segment } from "../message";
import { al1, dg1, obx } from "./clinical";
import { EncodeContext } from "./context";
import { documentSegments } from "./documents";
import { evn, facilityName, type Header, msh, type MshOptions, versionOf } from "./header";
import { FhirInput, list, obj, text } from "./input";
import { type OrderFamily, type OrderGroup, orderGroup, resultsOf } from "./orders";
import { mrg, pd1, pid, pv1, pv2 } from "./people";
import { resourceSegments, scheduleSegments } from "./scheduling";
import { type SystemOptions, SystemNames } from "./systems";

export type { HdInput, MshOptions } from "./header";
export { DEFAULT_VERSION, randomControlId, VERSIONS } from "./header";
export type { Hd } from "./systems";

/** The message types the encoder builds, with their message structure (MSH-9.3). */
export const ENCODABLE_MESSAGE_TYPES = {
  "ADT^A01": "ADT_A01",
  "ADT^A03": "ADT_A03",
  "ADT^A04": "ADT_A01",
  "ADT^A08": "ADT_A01",
  "ADT^A40": "ADT_A39",
  "ORU^R01": "ORU_R01",
  "ORM^O01": "ORM_O01",
  "OML^O21": "OML_O21",
  "SIU^S12": "SIU_S12",
  "MDM^T01": "MDM_T01",
  "MDM^T02": "MDM_T02",
} as const;
export type EncodableMessageType = keyof typeof ENCODABLE_MESSAGE_TYPES;

export interface FromFhirOptions extends SystemOptions {
  /** "ADT^A08", "ORU^R01"... */
  messageType: string;
  msh?: MshOptions;
  /** Delimiters of the message written (default |^~\&). */
  delimiters?: Delimiters;
}

export interface FromFhirResult {
  message: Hl7Message;
  /** The message text: every segment ended by CR, as the parser re-encodes a message. */
  text: string;
  controlId: string;
  /** What the message could not carry (resources of types it has no segment for, values without a field). */
  warnings: string[];
}

// ---------------------------------------------------------------- the message's patient

const isPatientRef = (ctx: EncodeContext, ref: unknown) => ctx.input.resolve(ref)?.resourceType === "Patient" || /(^|\/)Patient[/?]/.test(text(obj(ref)?.reference) ?? "");

/** Who a resource is about. */
function subjectRef(ctx: EncodeContext, r: Resource): unknown {
  if (r.resourceType === "Appointment") return list(r.participant).map((p) => p.actor).find((a) => isPatientRef(ctx, a));
  return r.subject ?? r.patient;
}

function describe(r: Resource): string {
  return `${r.resourceType}${r.id ? `/${r.id}` : ""}`;
}

/** The Patient a resource is about, else the input's first Patient that was not merged into another. */
function patientFor(ctx: EncodeContext, label: string, focus: Resource | undefined): Resource {
  const ref = focus ? subjectRef(ctx, focus) : undefined;
  const named = ref ? ctx.input.resolve(ref, "Patient") : undefined;
  if (ref && !named) throw new Hl7EncodingError("MISSING_RESOURCE", `${label}: the Patient ${describe(focus!)} is about (${JSON.stringify(obj(ref)?.reference ?? obj(ref)?.identifier)}) is not in the input`, "Patient");
  const patients = ctx.input.ofType("Patient");
  const patient = named ?? patients.find((p) => !list(p.link).some((l) => l.type === "replaced-by")) ?? patients[0];
  if (!patient) throw new Hl7EncodingError("MISSING_RESOURCE", `${label} needs a Patient (PID): the input holds none`, "Patient");
  return patient;
}

/** The resources of a type about the message's patient; one about another patient is refused, never mixed in. */
function ofPatient(ctx: EncodeContext, patient: Resource, type: string): Resource[] {
  return ctx.input.ofType(type).filter((r) => {
    const ref = subjectRef(ctx, r);
    if (!ref) return true;
    const who = ctx.input.resolve(ref, "Patient");
    if (who === patient) return true;
    const logical = obj(obj(ref)?.identifier);
    if (!who && logical && list(patient.identifier).some((i) => i.value === logical.value && (!logical.system || i.system === logical.system))) return true;
    throw new Hl7EncodingError("INVALID_INPUT", `${describe(r)} is about another patient than the message's ${describe(patient)}: one message carries one patient`, type);
  });
}

/** The encounter of the focus resource, else the patient's first one in the input. */
function encounterFor(ctx: EncodeContext, patient: Resource, focus: Resource | undefined): Resource | undefined {
  const own = focus ? (ctx.input.resolve(focus.encounter, "Encounter") ?? ctx.input.resolve(list(obj(focus.context)?.encounter)[0], "Encounter")) : undefined;
  return own ?? ofPatient(ctx, patient, "Encounter")[0];
}

function visit(ctx: EncodeContext, enc: Resource | undefined): Hl7Segment[] {
  return enc ? [pv1(ctx, enc), ...optional(pv2(ctx, enc))] : [];
}

const optional = <T>(x: T | undefined): T[] => (x === undefined ? [] : [x]);

/** Observations no DiagnosticReport of the input lists as a result. */
function withoutReport(ctx: EncodeContext, observations: Resource[]): Resource[] {
  const inReports = new Set(ctx.input.ofType("DiagnosticReport").flatMap((r) => list(r.result).map((ref) => ctx.input.resolve(ref, "Observation"))));
  return observations.filter((o) => !inReports.has(o));
}

const numbered = <T>(items: Resource[], f: (r: Resource, n: number) => T | undefined): T[] => {
  const out: T[] = [];
  for (const r of items) {
    const x = f(r, out.length + 1);
    if (x !== undefined) out.push(x);
  }
  return out;
};

// ---------------------------------------------------------------- message families

function adt(ctx: EncodeContext, label: string, event: string, header: Header): Hl7Segment[] {
  if (event === "A40") return merge(ctx, label, header);
  const enc = ctx.input.ofType("Encounter")[0];
  const patient = patientFor(ctx, label, enc);
  if (!enc && event !== "A08") throw new Hl7EncodingError("MISSING_RESOURCE", `${label} needs an Encounter (PV1): the input holds none`, "Encounter");
  const observations = withoutReport(ctx, ofPatient(ctx, patient, "Observation"));
  const obxs = numbered(observations, (o, n) => obx(ctx, o, n)).flat();
  const al1s = numbered(ofPatient(ctx, patient, "AllergyIntolerance"), (a, n) => al1(ctx, a, n));
  const dg1s = numbered(ofPatient(ctx, patient, "Condition"), (c, n) => dg1(ctx, c, n));
  const head = [evn(ctx, event, header.timestamp), pid(ctx, patient), ...optional(pd1(ctx, patient)), pv1(ctx, enc), ...optional(enc ? pv2(ctx, enc) : undefined)];
  // ADT_A03 lists AL1 and DG1 before OBX; ADT_A01 (A01, A04, A08) after.
  return event === "A03" ? [...head, ...al1s, ...dg1s, ...obxs] : [...head, ...obxs, ...al1s, ...dg1s];
}

/** A40: one PID/MRG pair per surviving Patient, from its `replaces` link (or the other side's `replaced-by`). */
function merge(ctx: EncodeContext, label: string, header: Header): Hl7Segment[] {
  const pairs: [Resource, Resource][] = [];
  const add = (survivor: Resource | undefined, replaced: Resource | undefined) => {
    if (survivor && replaced && survivor !== replaced && !pairs.some(([s, r]) => s === survivor && r === replaced)) pairs.push([survivor, replaced]);
  };
  for (const p of ctx.input.ofType("Patient")) {
    for (const link of list(p.link)) {
      const other = ctx.input.resolve(link.other, "Patient");
      if (link.type === "replaces") add(p, other);
      else if (link.type === "replaced-by") add(other, p);
    }
  }
  if (pairs.length === 0) {
    throw new Hl7EncodingError("MISSING_RESOURCE", `${label} needs a Patient whose link of type replaces names the replaced Patient, and that Patient in the input (MRG)`, "Patient.link");
  }
  return [evn(ctx, "A40", header.timestamp), ...pairs.flatMap(([survivor, replaced]) => [pid(ctx, survivor), mrg(ctx, replaced)])];
}

function oru(ctx: EncodeContext, label: string): Hl7Segment[] {
  const focus = ctx.input.ofType("DiagnosticReport")[0] ?? ctx.input.ofType("Observation")[0];
  if (!focus) throw new Hl7EncodingError("MISSING_RESOURCE", `${label} needs a DiagnosticReport or an Observation (OBR/OBX): the input holds neither`, "DiagnosticReport");
  const patient = patientFor(ctx, label, focus);
  const reports = ofPatient(ctx, patient, "DiagnosticReport");
  const groups: OrderGroup[] = reports.map((report) => ({ report, request: ctx.input.resolve(list(report.basedOn)[0], "ServiceRequest"), observations: resultsOf(ctx, report) }));
  // Observations without a report go under an OBR of their own: their request's, else one for them all.
  const loose = withoutReport(ctx, ofPatient(ctx, patient, "Observation"));
  const byRequest = new Map<Resource | undefined, Resource[]>();
  for (const o of loose) {
    const sr = ctx.input.resolve(list(o.basedOn)[0], "ServiceRequest");
    byRequest.set(sr, [...(byRequest.get(sr) ?? []), o]);
  }
  for (const [request, observations] of byRequest) {
    const code = observations.length === 1 ? observations[0]!.code : (sharedCategory(observations) ?? { text: "Observations" });
    if (!request) ctx.warn(`${observations.length} Observation(s) without a DiagnosticReport: written under one OBR whose OBR-4 is ${JSON.stringify(text(obj(code)?.text) ?? list(obj(code)?.coding)[0]?.code ?? "")}`);
    groups.push({ request, observations, code });
  }
  const enc = encounterFor(ctx, patient, focus);
  return [pid(ctx, patient), ...optional(pd1(ctx, patient)), ...visit(ctx, enc), ...groups.flatMap((g, i) => orderGroup(ctx, "ORU", g, i + 1))];
}

/** The category all the observations share, if they do. */
function sharedCategory(observations: Resource[]): unknown {
  const first = list(observations[0]?.category)[0];
  const key = (c: unknown) => JSON.stringify(list(obj(c)?.coding).map((x) => [x.system, x.code]));
  return first && observations.every((o) => list(o.category).some((c) => key(c) === key(first))) ? first : undefined;
}

function orders(ctx: EncodeContext, label: string, family: OrderFamily): Hl7Segment[] {
  const focus = ctx.input.ofType("ServiceRequest")[0];
  if (!focus) throw new Hl7EncodingError("MISSING_RESOURCE", `${label} needs a ServiceRequest (ORC/OBR): the input holds none`, "ServiceRequest");
  const patient = patientFor(ctx, label, focus);
  const requests = ofPatient(ctx, patient, "ServiceRequest");
  const observations = withoutReport(ctx, ofPatient(ctx, patient, "Observation"));
  const basedOn = (o: Resource) => ctx.input.resolve(list(o.basedOn)[0], "ServiceRequest");
  const written = new Set<Resource>();
  let dg1Count = 0;
  const groups = requests.map((request, i): OrderGroup => {
    const conditions = list(request.reasonReference)
      .map((ref) => ctx.input.resolve(ref, "Condition"))
      .filter((c): c is Resource => !!c && !written.has(c))
      .flatMap((c) => {
        written.add(c);
        return optional(dg1(ctx, c, ++dg1Count));
      });
    // Observations of no request here go with the first order, as OBX of its details.
    const own = observations.filter((o) => basedOn(o) === request || (i === 0 && !requests.includes(basedOn(o)!)));
    return { request, observations: own, conditions };
  });
  const enc = encounterFor(ctx, patient, focus);
  const allergies = numbered(ofPatient(ctx, patient, "AllergyIntolerance"), (a, n) => al1(ctx, a, n));
  return [pid(ctx, patient), ...optional(pd1(ctx, patient)), ...visit(ctx, enc), ...allergies, ...groups.flatMap((g, i) => orderGroup(ctx, family, g, i + 1))];
}

function siu(ctx: EncodeContext, label: string): Hl7Segment[] {
  const appointment = ctx.input.ofType("Appointment")[0];
  if (!appointment) throw new Hl7EncodingError("MISSING_RESOURCE", `${label} needs an Appointment (SCH): the input holds none`, "Appointment");
  const patient = patientFor(ctx, label, appointment);
  const enc = encounterFor(ctx, patient, undefined);
  const observations = withoutReport(ctx, ofPatient(ctx, patient, "Observation"));
  return [
    ...scheduleSegments(ctx, appointment),
    pid(ctx, patient),
    ...optional(pd1(ctx, patient)),
    ...visit(ctx, enc),
    ...numbered(observations, (o, n) => obx(ctx, o, n)).flat(),
    ...numbered(ofPatient(ctx, patient, "Condition"), (c, n) => dg1(ctx, c, n)),
    ...resourceSegments(ctx, appointment),
  ];
}

function mdm(ctx: EncodeContext, label: string, event: string, header: Header): Hl7Segment[] {
  const doc = ctx.input.ofType("DocumentReference")[0];
  if (!doc) throw new Hl7EncodingError("MISSING_RESOURCE", `${label} needs a DocumentReference (TXA): the input holds none`, "DocumentReference");
  const patient = patientFor(ctx, label, doc);
  const enc = ctx.input.resolve(list(obj(doc.context)?.encounter)[0], "Encounter");
  const requests = list(obj(doc.context)?.related)
    .map((ref) => ctx.input.resolve(ref, "ServiceRequest"))
    .filter((r): r is Resource => !!r);
  return [
    evn(ctx, event, header.timestamp),
    pid(ctx, patient),
    pv1(ctx, enc),
    ...requests.flatMap((request, i) => orderGroup(ctx, "MDM", { request, observations: [] }, i + 1)),
    ...documentSegments(ctx, doc, event === "T02"),
  ];
}

// ---------------------------------------------------------------- entry point

/** Parse "ADT^A08" (also "ADT_A08"). */
function messageTypeOf(messageType: string): { type: string; event: string; label: EncodableMessageType } {
  const m = /^([A-Z]{3})[\^_]([A-Z0-9]{3})$/.exec(String(messageType ?? "").trim().toUpperCase());
  const label = m ? `${m[1]}^${m[2]}` : String(messageType);
  if (!m || !(label in ENCODABLE_MESSAGE_TYPES)) {
    throw new Hl7EncodingError("UNSUPPORTED_MESSAGE_TYPE", `HL7 message type ${JSON.stringify(messageType)} is not one the encoder builds (${Object.keys(ENCODABLE_MESSAGE_TYPES).join(", ")})`, "messageType");
  }
  return { type: m[1]!, event: m[2]!, label: label as EncodableMessageType };
}

/** Build an HL7 v2 message from a FHIR Bundle (or one resource). */
export function convertFromFhir(input: unknown, options: FromFhirOptions): FromFhirResult {
  const { type, event, label } = messageTypeOf(options.messageType);
  const mshOptions = options.msh ?? {};
  const version = versionOf(mshOptions);
  const d = options.delimiters ?? DEFAULT_DELIMITERS;
  const ctx = new EncodeContext(new FhirInput(input), new SystemNames(options, facilityName(mshOptions)), d, version);
  const header = msh(ctx, mshOptions, type, event, ENCODABLE_MESSAGE_TYPES[label], d);
  let body: Hl7Segment[];
  if (type === "ADT") body = adt(ctx, label, event, header);
  else if (type === "ORU") body = oru(ctx, label);
  else if (type === "ORM" || type === "OML") body = orders(ctx, label, type);
  else if (type === "SIU") body = siu(ctx, label);
  else body = mdm(ctx, label, event, header);
  const leftOut = ctx.input.leftOut();
  if (leftOut.length) ctx.warn(`not carried by ${label}: ${leftOut.join(", ")}`);
  const message = new Hl7Message(d, [header.segment, ...body]);
  return { message, text: message.toString(), controlId: header.controlId, warnings: ctx.warnings };
}
