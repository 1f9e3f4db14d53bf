// Appointment → SCH (+ TQ1, NTE) and the resource group RGS with AIS (service types),
// AIG (devices), AIL (locations) and AIP (practitioners): the converter's SCH and AI*
// maps (convert/scheduling.ts) backwards. The Patient participant is the PID.

import type { Resource } from "../../../platform/fhir-resource";
import type { Hl7Segment } from "../message";
import type { EncodeContext } from "./context";
import { cwe, dtm, ei, identifierTyped, pl, xcn } from "./datatypes";
import { type Json, list, obj, text } from "./input";
import { realIdentifiers } from "./people";
import { FILLER_STATUS, PARTICIPANT_STATUS } from "./vocab";
import type { Fields, Rep } from "./writer";

/** An identifier of a request the appointment is basedOn: its own (logical reference) or the resolved ServiceRequest's. */
function orderNumber(ctx: EncodeContext, appt: Resource, code: "PLAC" | "FILL"): Json | undefined {
  for (const ref of list(appt.basedOn)) {
    const own = obj(ref.identifier);
    if (own && identifierTyped([own], code)) return own;
    const sr = ctx.input.resolve(ref, "ServiceRequest");
    const found = sr ? identifierTyped(sr.identifier, code) : undefined;
    if (found) return found;
  }
  return undefined;
}

/** SCH, its TQ1 (v2.5+) and the comment as NTE. */
export function scheduleSegments(ctx: EncodeContext, appt: Resource): Hl7Segment[] {
  ctx.input.use(appt);
  const ids = realIdentifiers(ctx, appt.identifier);
  const placer = identifierTyped(ids, "PLAC");
  const filler = identifierTyped(ids, "FILL") ?? ids.find((i) => i !== placer && !obj(i.type));
  const status = text(appt.status);
  const requested = obj(list(appt.requestedPeriod)[0]);
  const start = dtm(ctx, appt.start ?? requested?.start, "Appointment.start");
  const end = dtm(ctx, appt.end ?? requested?.end, "Appointment.end");
  const minutes = typeof appt.minutesDuration === "number" ? appt.minutesDuration : undefined;
  const useTq1 = ctx.atLeast("2.5");
  const segments = [
    ctx.segment("SCH", {
      1: ei(ctx, placer),
      2: ei(ctx, filler),
      6: status === "cancelled" || status === "noshow" ? cwe(ctx, appt.cancelationReason) : undefined,
      7: cwe(ctx, list(appt.reasonCode)[0]),
      8: cwe(ctx, appt.appointmentType),
      9: minutes,
      10: minutes !== undefined ? "min" : undefined,
      11: !useTq1 && (start || end) ? [undefined, undefined, undefined, start, end] : undefined,
      25: status && FILLER_STATUS[status] ? [FILLER_STATUS[status], undefined, "HL70278"] : undefined,
      26: ei(ctx, orderNumber(ctx, appt, "PLAC")),
      27: ei(ctx, orderNumber(ctx, appt, "FILL")),
    }),
  ];
  if (useTq1 && (start || end)) segments.push(ctx.segment("TQ1", { 1: 1, 7: start, 8: end }));
  const comment = text(appt.comment);
  if (comment) segments.push(ctx.segment("NTE", { 1: 1, 3: comment }));
  return segments;
}

/** The resource segments in the order SIU_S12's resource group (RGS) holds them. */
const RANK = { AIS: 0, AIG: 1, AIL: 2, AIP: 3 } as const;
type ResourceSegment = keyof typeof RANK;

/**
 * RGS groups: one AIS per service type, then an AIG, AIL or AIP per device, location or
 * practitioner participant. A group holds them in AIS, AIG, AIL, AIP order, so a new RGS
 * starts where the participants' order would go back: the order of Appointment.participant
 * comes back as it was.
 */
export function resourceSegments(ctx: EncodeContext, appt: Resource): Hl7Segment[] {
  const out: Hl7Segment[] = [];
  let groups = 0;
  let last = -1;
  const counts: Partial<Record<ResourceSegment, number>> = {};
  const add = (name: ResourceSegment, fields: Fields) => {
    if (RANK[name] < last || groups === 0) {
      out.push(ctx.segment("RGS", { 1: ++groups }));
      for (const k of Object.keys(counts) as ResourceSegment[]) counts[k] = 0;
    }
    last = RANK[name];
    counts[name] = (counts[name] ?? 0) + 1;
    out.push(ctx.segment(name, { ...fields, 1: counts[name] }));
  };
  for (const s of list(appt.serviceType)) add("AIS", { 3: cwe(ctx, s) });
  for (const p of list(appt.participant)) {
    const actor = ctx.input.resolve(p.actor);
    const type = list(p.type)[0];
    const status = text(p.status) ? PARTICIPANT_STATUS[text(p.status)!] : undefined;
    const statusCode = status ? [status, undefined, "HL70278"] : undefined;
    switch (actor?.resourceType) {
      case "Practitioner":
      case "PractitionerRole":
        add("AIP", { 3: xcn(ctx, p.actor), 4: cwe(ctx, type), 12: statusCode });
        break;
      case "Location":
        add("AIL", { 3: pl(ctx, p.actor), 4: cwe(ctx, type), 12: statusCode });
        break;
      case "Device": {
        ctx.input.use(actor);
        const id = text(list(actor.identifier)[0]?.value);
        const name = text(obj(list(actor.deviceName)[0])?.name);
        const resource: Rep | undefined = id || name ? [id, name] : undefined;
        add("AIG", { 3: resource, 4: cwe(ctx, type ?? actor.type), 14: statusCode });
        break;
      }
      case "Patient":
        break; // the PID
      default:
        if (p.actor) ctx.warn(`Appointment.participant ${JSON.stringify(obj(p.actor)?.reference ?? obj(p.actor)?.display)} is not a Practitioner, Location or Device in the input: left out`);
    }
  }
  // SIU_S12 needs one resource group, even an empty one
  return out.length ? out : [ctx.segment("RGS", { 1: 1 })];
}
