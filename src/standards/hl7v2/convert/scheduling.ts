// SIU: SCH (+ TQ1, NTE) and the AIS/AIG/AIL/AIP resource segments → Appointment,
// after the IG's SCH[Appointment] and AI*[Appointment] maps.

import type { Resource } from "../../../platform/fhir-resource";
import { addMinutes } from "../datetime";
import type { Hl7Segment } from "../message";
import type { Subject } from "./clinical";
import { type ConversionContext, identifierCondition, type Identifier, type Ref } from "./context";
import { cwe, dateTime, decimal, eiIdentifier, reps, str } from "./datatypes";
import { location, practitioner } from "./people";
import { APPOINTMENT_STATUS, SIU_EVENT_STATUS, V2 } from "./vocab";

export interface AppointmentInput {
  sch: Hl7Segment;
  tq1?: Hl7Segment;
  notes: string[];
  /** AIS, AIG, AIL and AIP segments, in order. */
  resources: Hl7Segment[];
}

/** Minutes in a duration with units (CNE/CE code: s, min, h, d...); minutes when no unit. */
function minutesOf(value: string | undefined, unit: string | undefined): number | undefined {
  const n = decimal(value);
  if (n === undefined) return undefined;
  const u = (unit ?? "min").toLowerCase();
  if (u === "s" || u.startsWith("sec")) return n / 60;
  if (u === "h" || u === "hr" || u.startsWith("hour")) return n * 60;
  if (u === "d" || u.startsWith("day")) return n * 1440;
  return n;
}

function participantStatus(code: string | undefined, appointmentStatus: string): string {
  const c = code?.toUpperCase();
  if (c === "BOOKED" || c === "COMPLETE" || c === "STARTED" || c === "OVERBOOK") return "accepted";
  if (c === "CANCELLED" || c === "DELETED" || c === "NOSHOW" || c === "DISCONTINUED") return "declined";
  if (c === "PENDING" || c === "WAITLIST") return "tentative";
  if (["booked", "arrived", "fulfilled", "checked-in"].includes(appointmentStatus)) return "accepted";
  if (["cancelled", "noshow", "entered-in-error"].includes(appointmentStatus)) return "declined";
  return "needs-action";
}

/** SCH + AI* → Appointment, keyed by the filler appointment id (SCH-2), else the placer's (SCH-1), else the message. */
export function appointment(ctx: ConversionContext, input: AppointmentInput, subject: Subject, event: string): Ref {
  const { sch, tq1 } = input;
  const placer = eiIdentifier(ctx, sch.field(1).rep(1), "PLAC");
  const filler = eiIdentifier(ctx, sch.field(2).rep(1), "FILL");
  const key: Identifier = filler ?? placer ?? ctx.messageIdentifier("SCH");
  const fillerStatus = str(sch.field(25), 1);
  const status = (fillerStatus && APPOINTMENT_STATUS[fillerStatus.toUpperCase()]) || SIU_EVENT_STATUS[event] || "booked";

  // when: SCH-11 (TQ, v2.3–2.6), TQ1-7/8 (v2.7+), else the first resource's start + duration
  const tq = sch.field(11).rep(1);
  let start = dateTime(ctx, str(tq.part(4), 1)) ?? (tq1 ? dateTime(ctx, str(tq1.field(7), 1)) : undefined);
  let end = dateTime(ctx, str(tq.part(5), 1)) ?? (tq1 ? dateTime(ctx, str(tq1.field(8), 1)) : undefined);
  let minutes = minutesOf(str(sch.field(9), 1), str(sch.field(10), 1));
  const resourceTimes: Record<string, [number, number, number]> = { AIS: [4, 7, 8], AIG: [8, 11, 12], AIL: [6, 9, 10], AIP: [6, 9, 10] };
  for (const r of input.resources) {
    const [s, d, u] = resourceTimes[r.name] ?? [0, 0, 0];
    start ??= dateTime(ctx, str(r.field(s), 1));
    minutes ??= minutesOf(str(r.field(d), 1), str(r.field(u), 1));
  }
  if (start && !end && minutes !== undefined) end = addMinutes(start, minutes);
  if (end && !end.includes("T")) end = undefined; // Appointment.start/end are instants
  if (start && !start.includes("T")) end = undefined;
  if (start && end && Date.parse(end) < Date.parse(start)) end = undefined;
  const requestedPeriod = start && !end ? [{ start }] : undefined;
  if (!end) start = undefined;

  const participant: unknown[] = [{ actor: subject.patient, status: participantStatus(undefined, status) }];
  const serviceType: unknown[] = [];
  for (const r of input.resources) {
    const rStatus = participantStatus(str(r.field(r.name === "AIS" ? 10 : r.name === "AIG" ? 14 : 12), 1), status);
    if (r.name === "AIS") {
      const svc = cwe(ctx, r.field(3).rep(1));
      if (svc) serviceType.push(svc);
    } else if (r.name === "AIP") {
      const actor = practitioner(ctx, reps(r.field(3))[0]);
      if (actor) participant.push({ type: [cwe(ctx, r.field(4).rep(1))], actor, status: rStatus });
    } else if (r.name === "AIL") {
      const actor = location(ctx, r.field(3).rep(1));
      if (actor) participant.push({ type: [cwe(ctx, r.field(4).rep(1), V2("0305"))], actor, status: rStatus });
    } else if (r.name === "AIG") {
      const id = str(r.field(3), 1);
      if (id) {
        const ident: Identifier = { system: ctx.uri("resource", ctx.defaultSystem), value: id };
        const device: Resource = { resourceType: "Device", identifier: [ident], deviceName: str(r.field(3), 2) ? [{ name: str(r.field(3), 2), type: "user-friendly-name" }] : undefined, type: cwe(ctx, r.field(4).rep(1)) };
        const actor = { reference: ctx.add(device, "create", `Device|${ident.system}|${ident.value}`, identifierCondition(ident)), display: str(r.field(3), 2) };
        participant.push({ type: [cwe(ctx, r.field(4).rep(1))], actor, status: rStatus });
      }
    }
  }
  const placerOrder = eiIdentifier(ctx, sch.field(26).rep(1), "PLAC");
  const fillerOrder = eiIdentifier(ctx, sch.field(27).rep(1), "FILL");
  const reason = cwe(ctx, sch.field(7).rep(1), V2("0276"));
  const type = cwe(ctx, sch.field(8).rep(1), V2("0277"));
  const resource: Resource = {
    resourceType: "Appointment",
    identifier: [placer, filler, key === placer || key === filler ? undefined : key],
    status,
    cancelationReason: status === "cancelled" || status === "noshow" ? cwe(ctx, sch.field(6).rep(1)) : undefined,
    serviceType,
    appointmentType: type,
    reasonCode: reason ? [reason] : undefined,
    start,
    end,
    minutesDuration: minutes !== undefined && Math.round(minutes) >= 1 ? Math.round(minutes) : undefined,
    comment: input.notes.length ? input.notes.join("\n") : undefined,
    basedOn: [placerOrder, fillerOrder].filter(Boolean).map((identifier) => ({ type: "ServiceRequest", identifier })),
    participant,
    requestedPeriod,
  };
  const ref = ctx.add(resource, "update", `Appointment|${key.system}|${key.value}`, identifierCondition(key));
  return { reference: ref };
}
