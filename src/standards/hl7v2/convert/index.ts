// HL7 v2 → FHIR R4 transaction Bundle for the six supported message families
// (ADT, ORU^R01, ORM^O01, SIU^S12–S26, MDM^T01–T11, DFT^P03/P11), following the
// HL7 V2-to-FHIR IG message maps. Pure and deterministic: the same message gives
// the same Bundle (only Provenance.recorded falls back to the clock, and only when
// MSH-7 is unusable and no receivedAt is given).

import type { Bundle, Resource } from "../../../platform/fhir-resource";
import { toFhirInstant } from "../datetime";
import { Hl7ConversionError } from "../errors";
import type { Hl7Message, Hl7Segment } from "../message";
import { parseMessage } from "../parse";
import { allergy, chargeItem, condition, coverage, observation, procedure, type Subject } from "./clinical";
import { ConversionContext, type ConvertOptions, identifierCondition, type Identifier, type Ref } from "./context";
import { clean, cxIdentifier, dateTime, reps, str, xpnName } from "./datatypes";
import { documentReference } from "./documents";
import { diagnosticReport, type OrderGroup, orderIds, serviceRequest } from "./orders";
import { deviceHd, encounter, organizationHd, patient, relatedPerson } from "./people";
import { appointment } from "./scheduling";
import { V2 } from "./vocab";

export type { ConvertOptions } from "./context";

export type MessageFamily = "ADT" | "ORU" | "ORM" | "SIU" | "MDM" | "DFT";

/** Triggers handled per family. */
const SUPPORTED: Record<MessageFamily, (trigger: string) => boolean> = {
  ADT: (t) => /^A(0[1-9]|[1-5]\d|6[0-2])$/.test(t),
  ORU: (t) => t === "R01",
  ORM: (t) => t === "O01",
  SIU: (t) => /^S(1[2-9]|2[0-6])$/.test(t),
  MDM: (t) => /^T(0[1-9]|1[01])$/.test(t),
  DFT: (t) => t === "P03" || t === "P11",
};

/** ADT events about a person, not a visit: no Encounter even when a PV1 is present. */
const ADT_WITHOUT_ENCOUNTER = new Set(["A24", "A28", "A29", "A31", "A37", "A39", "A40", "A41", "A42", "A46", "A47", "A48", "A49"]);

/** ADT events whose MRG names a patient record merged into the PID's one. */
const ADT_MERGE = new Set(["A18", "A34", "A36", "A39", "A40"]);

/** Whether a message type is one the converter handles. */
export function isSupportedMessage(type: string, trigger: string): boolean {
  const f = SUPPORTED[type as MessageFamily];
  return !!f && f(trigger);
}

export interface ConversionResult {
  bundle: Bundle;
  /** Values that could not be converted (invalid dates...) and were left out. */
  warnings: string[];
}

/** Convert a message (parsed, or its text) into a FHIR R4 transaction Bundle. */
export function convertToFhir(message: Hl7Message | string, options: ConvertOptions = {}): Bundle {
  return convertToFhirWithReport(message, options).bundle;
}

export function convertToFhirWithReport(message: Hl7Message | string, options: ConvertOptions = {}): ConversionResult {
  const msg = typeof message === "string" ? parseMessage(message) : message;
  const type = msg.messageType.toUpperCase();
  const trigger = msg.triggerEvent.toUpperCase();
  const label = `${type}^${trigger}`;
  if (!isSupportedMessage(type, trigger)) {
    throw new Hl7ConversionError("UNSUPPORTED_MESSAGE_TYPE", `HL7 message type ${label} is not supported (ADT, ORU^R01, ORM^O01, SIU^S12–S26, MDM^T01–T11, DFT^P03/P11 are)`, label);
  }
  if (!clean(msg.controlId)) throw new Hl7ConversionError("INVALID_MESSAGE", "MSH-10 (message control id) is empty", label);
  const family = type as MessageFamily;
  const ctx = new ConversionContext(msg, options);
  const pid = msg.segment("PID");
  if (!pid) throw new Hl7ConversionError("MISSING_SEGMENT", `${label} has no PID segment`, label);

  const patientMode = options.patientMode ?? (family === "ADT" ? "update" : "create");
  const pd1 = nextSegment(msg, pid, "PD1", ["PID"]);
  const pat = patient(ctx, pid, patientMode, pd1);
  const subject: Subject = { patient: pat.ref, patientKey: pat.key };

  // Encounter
  const pv1 = msg.segment("PV1");
  const withEncounter = pv1 && !(family === "ADT" && ADT_WITHOUT_ENCOUNTER.has(trigger)) && !onlyNotApplicable(pv1);
  if (pv1 && withEncounter) {
    const pv2 = nextSegment(msg, pv1, "PV2", ["PV1"]);
    const enc = encounter(ctx, pv1, pv2, pat.ref, family === "ADT" ? "update" : "create", family === "ADT" ? trigger : undefined);
    subject.encounter = enc.ref;
  }

  if (family === "ADT" && ADT_MERGE.has(trigger)) merges(ctx, msg, pat.resource, patientMode);

  const walk = walkSegments(msg);
  // People and clinical content shared by the families
  for (const s of walk.nk1) relatedPerson(ctx, s, pat.ref, pat.key);
  const conditions = walk.dg1.map((s) => condition(ctx, s, subject)).filter((r): r is Ref => !!r);
  for (const s of walk.al1) allergy(ctx, s, subject);
  for (const s of walk.pr1) procedure(ctx, s, subject);
  for (const s of walk.in1) coverage(ctx, s, subject);

  // Orders and results
  let obxIndex = 0;
  const orderRefs: Ref[] = [];
  for (const g of walk.orders) {
    const ids = orderIds(ctx, g);
    let sr: Ref | undefined;
    if (family === "ORM") sr = serviceRequest(ctx, g, subject, { mode: "update", reasonReference: conditions });
    else if (ids.placer || ids.filler) sr = serviceRequest(ctx, g, subject, { mode: "create" });
    if (sr) orderRefs.push(sr);
    if (family === "MDM") continue; // MDM OBX carry the document body
    const orderKey = ids.filler ?? ids.placer;
    const effective = g.obr ? dateTime(ctx, str(g.obr.field(7), 1)) : undefined;
    const results = g.observations.map((o) =>
      observation(ctx, o.obx, subject, { order: orderKey, basedOn: sr, effective, mode: "update", index: ++obxIndex }, o.notes),
    );
    if (family === "ORU") diagnosticReport(ctx, g, subject, sr, results);
  }
  if (family !== "MDM") {
    for (const o of walk.observations) observation(ctx, o.obx, subject, { mode: "update", index: ++obxIndex }, o.notes);
  }

  // Family-specific primary resources
  if (family === "SIU") {
    if (!walk.appointment) throw new Hl7ConversionError("MISSING_SEGMENT", `${label} has no SCH segment`, label);
    appointment(ctx, walk.appointment, subject, trigger);
  }
  if (family === "MDM") {
    const txa = msg.segment("TXA");
    if (!txa) throw new Hl7ConversionError("MISSING_SEGMENT", `${label} has no TXA segment`, label);
    documentReference(ctx, { txa, obx: msg.segmentsNamed("OBX"), event: trigger, context: orderRefs }, subject);
  }
  if (family === "DFT") {
    if (walk.ft1.length === 0) throw new Hl7ConversionError("MISSING_SEGMENT", `${label} has no FT1 segment`, label);
    for (const [i, s] of walk.ft1.entries()) chargeItem(ctx, s, subject, i + 1);
  }

  finish(ctx, msg, label);
  return { bundle: ctx.bundle(), warnings: ctx.warnings };
}

/** A PV1 that only says "not applicable" (PV1-2 = N) and nothing else of use. */
function onlyNotApplicable(pv1: Hl7Segment): boolean {
  if (str(pv1.field(2), 1)?.toUpperCase() !== "N") return false;
  for (let n = 3; n <= pv1.length; n++) if (!pv1.field(n).isEmpty) return false;
  return true;
}

/** The first `name` segment after `from`, before any segment in `stop`. */
function nextSegment(msg: Hl7Message, from: Hl7Segment, name: string, stop: string[]): Hl7Segment | undefined {
  const i = msg.segments.indexOf(from);
  for (let j = i + 1; j < msg.segments.length; j++) {
    const s = msg.segments[j]!;
    if (s.name === name) return s;
    if (stop.includes(s.name)) return undefined;
  }
  return undefined;
}

interface Walk {
  nk1: Hl7Segment[];
  al1: Hl7Segment[];
  dg1: Hl7Segment[];
  pr1: Hl7Segment[];
  in1: Hl7Segment[];
  ft1: Hl7Segment[];
  orders: OrderGroup[];
  /** OBX outside any order group. */
  observations: { obx: Hl7Segment; notes: string[] }[];
  appointment?: { sch: Hl7Segment; tq1?: Hl7Segment; notes: string[]; resources: Hl7Segment[] };
}

/** One pass over the segments: order groups, OBX with their NTE, scheduling resources. */
function walkSegments(msg: Hl7Message): Walk {
  const w: Walk = { nk1: [], al1: [], dg1: [], pr1: [], in1: [], ft1: [], orders: [], observations: [] };
  let group: OrderGroup | undefined;
  let notes: string[] | undefined;
  let inAppointment = false;
  for (const s of msg.segments) {
    switch (s.name) {
      case "ORC":
        group = { orc: s, notes: [], observations: [], index: w.orders.length + 1 };
        w.orders.push(group);
        notes = group.notes;
        inAppointment = false;
        break;
      case "OBR":
        if (!group || group.obr || !group.orc || group.observations.length > 0) {
          group = { notes: [], observations: [], index: w.orders.length + 1 };
          w.orders.push(group);
        }
        group.obr = s;
        notes = group.notes;
        inAppointment = false;
        break;
      case "TQ1":
        if (group && !group.tq1) group.tq1 = s;
        else if (w.appointment && !w.appointment.tq1) w.appointment.tq1 = s;
        break;
      case "OBX": {
        const o = { obx: s, notes: [] as string[] };
        if (group && !inAppointment) group.observations.push(o);
        else w.observations.push(o);
        notes = o.notes;
        break;
      }
      case "NTE": {
        const text = clean(s.field(3).repetitions().map((r) => r.text).join("\n"));
        if (text && notes) notes.push(text);
        break;
      }
      case "SCH":
        if (!w.appointment) w.appointment = { sch: s, notes: [], resources: [] };
        notes = w.appointment.notes;
        inAppointment = true;
        group = undefined;
        break;
      case "AIS":
      case "AIG":
      case "AIL":
      case "AIP":
        if (w.appointment) {
          w.appointment.resources.push(s);
          notes = w.appointment.notes;
        }
        break;
      case "NK1":
        w.nk1.push(s);
        notes = undefined;
        break;
      case "AL1":
        w.al1.push(s);
        notes = undefined;
        break;
      case "DG1":
        w.dg1.push(s);
        notes = undefined;
        break;
      case "PR1":
        w.pr1.push(s);
        notes = undefined;
        break;
      case "IN1":
        w.in1.push(s);
        notes = undefined;
        break;
      case "FT1":
        w.ft1.push(s);
        notes = undefined;
        break;
      case "PID":
      case "PV1":
      case "PV2":
      case "TXA":
        notes = undefined;
        group = s.name === "PID" || s.name === "PV1" ? undefined : group;
        break;
      default:
        break; // other segments (EVN, PD1, SPM, Z-segments...) carry nothing converted here
    }
  }
  return w;
}

/** A39/A40 (and the other merges): each PID/MRG pair links the prior record to the surviving one. */
function merges(ctx: ConversionContext, msg: Hl7Message, firstPatient: Resource, mode: "update" | "create"): void {
  const pids = msg.segmentsNamed("PID");
  pids.forEach((pidSeg, i) => {
    const mrg = nextSegment(msg, pidSeg, "MRG", ["PID"]);
    if (!mrg) return;
    let survivor = firstPatient;
    let survivorRef: string | undefined = ctx.entries.find((e) => e.resource === firstPatient)?.fullUrl;
    if (i > 0) {
      const p = patient(ctx, pidSeg, mode, undefined, `Patient#${i + 1}`);
      survivor = p.resource;
      survivorRef = p.ref.reference;
    }
    const prior: Identifier[] = [...reps(mrg.field(1)), ...reps(mrg.field(2)), ...reps(mrg.field(4))]
      .map((r) => cxIdentifier(ctx, r))
      .filter((x): x is Identifier => !!x);
    const key = prior[0];
    if (!key || !survivorRef) {
      ctx.warn("MRG without a prior patient identifier: nothing merged");
      return;
    }
    const survivorIds = (survivor.identifier as Identifier[] | undefined) ?? [];
    if (survivorIds.some((s) => s.system === key.system && s.value === key.value)) {
      ctx.warn(`MRG-1 ${key.value} is the surviving patient's own identifier: nothing merged`);
      return;
    }
    const names = reps(mrg.field(7)).map((r) => xpnName(ctx, r));
    const old: Resource = {
      resourceType: "Patient",
      identifier: prior,
      active: false,
      name: names,
      link: [{ other: { reference: survivorRef }, type: "replaced-by" }],
    };
    const oldRef = ctx.add(old, "update", `Patient|merged|${key.system}|${key.value}`, identifierCondition(key));
    const links = (survivor.link as unknown[] | undefined) ?? [];
    links.push({ other: { reference: oldRef }, type: "replaces" });
    survivor.link = links;
  });
}

/** Provenance (and optionally MessageHeader) pointing back to the message. */
function finish(ctx: ConversionContext, msg: Hl7Message, label: string): void {
  const device = deviceHd(ctx, msg.sendingApplication);
  const org = organizationHd(ctx, msg.sendingFacility);
  const targets = ctx.entries.map((e) => ({ reference: e.fullUrl! }));
  const evn = msg.segment("EVN");
  const recorded =
    toFhirInstant(msg.dateTime, ctx.tz) ??
    ctx.options.receivedAt ??
    new Date().toISOString();
  const entityWhat = {
    identifier: { system: ctx.messageSystem, value: ctx.controlId },
    display: `HL7 v2 ${label} message ${ctx.controlId}`,
  };
  const trigger = msg.triggerEvent;
  const provenance: Resource = {
    resourceType: "Provenance",
    target: targets,
    occurredDateTime: evn ? (dateTime(ctx, str(evn.field(6), 1)) ?? dateTime(ctx, str(evn.field(2), 1))) : undefined,
    recorded,
    activity: trigger ? { coding: [{ system: V2("0003"), code: trigger }] } : undefined,
    agent: [
      {
        type: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/provenance-participant-type", code: "author", display: "Author" }] },
        who: device ?? org ?? { display: "unknown sender" },
        onBehalfOf: device ? org : undefined,
      },
    ],
    entity: [{ role: "source", what: entityWhat }],
  };
  if (ctx.options.messageHeader) {
    const app = msg.sendingApplication.s(1) || "unknown";
    const dest = msg.receivingApplication.s(1);
    const header: Resource = {
      resourceType: "MessageHeader",
      eventCoding: { system: V2("0003"), code: trigger || msg.messageType },
      destination: dest ? [{ name: dest, endpoint: ctx.uri("application", dest) }] : undefined,
      sender: org,
      source: { name: app, endpoint: ctx.uri("application", app) },
      focus: targets,
    };
    ctx.add(header, "id", "MessageHeader");
  }
  ctx.add(provenance, "id", "Provenance");
}
