// ORC/OBR order groups → ServiceRequest (ORM: the order itself; ORU/MDM/DFT: created
// only when missing) and DiagnosticReport (ORU), after the IG's ORC[ServiceRequest],
// OBR[ServiceRequest], OBR[DiagnosticReport] and ORC[DiagnosticReport] maps.

import type { Resource } from "../../../platform/fhir-resource";
import { toFhirInstant } from "../datetime";
import type { Hl7Segment } from "../message";
import type { Subject } from "./clinical";
import { type ConversionContext, identifierCondition, type Identifier, type Ref } from "./context";
import { cwe, dateTime, eiIdentifier, reps, str, validPeriod, xtnContact } from "./datatypes";
import { practitioner, practitionerFromCnn } from "./people";
import { ORDER_CONTROL_STATUS, ORDER_PRIORITY, ORDER_STATUS, RESULT_STATUS, V2 } from "./vocab";

/** One ORC/OBR group with what follows it. */
export interface OrderGroup {
  orc?: Hl7Segment;
  obr?: Hl7Segment;
  tq1?: Hl7Segment;
  notes: string[];
  observations: { obx: Hl7Segment; notes: string[] }[];
  /** Position among the message's order groups (1-based). */
  index: number;
}

export interface OrderIds {
  placer?: Identifier;
  filler?: Identifier;
  group?: Identifier;
}

/** Placer (ORC-2, else OBR-2), filler (ORC-3, else OBR-3) and placer group (ORC-4) numbers. */
export function orderIds(ctx: ConversionContext, g: OrderGroup): OrderIds {
  const pick = (orcField: number, obrField: number, type: string) =>
    (g.orc ? eiIdentifier(ctx, g.orc.field(orcField).rep(1), type) : undefined) ?? (g.obr ? eiIdentifier(ctx, g.obr.field(obrField).rep(1), type) : undefined);
  return {
    placer: pick(2, 2, "PLAC"),
    filler: pick(3, 3, "FILL"),
    group: g.orc ? eiIdentifier(ctx, g.orc.field(4).rep(1), "PGN") : undefined,
  };
}

function timing(g: OrderGroup): { start?: string; priority?: string } {
  if (g.tq1) return { start: str(g.tq1.field(7), 1), priority: str(g.tq1.field(9), 1) };
  const tq = g.orc && !g.orc.field(7).isEmpty ? g.orc.field(7).rep(1) : g.obr?.field(27).rep(1);
  if (!tq) return {};
  return { start: str(tq.part(4), 1), priority: str(tq, 6) };
}

export interface ServiceRequestOptions {
  mode: "update" | "create";
  reasonReference?: Ref[];
}

/** ORC/OBR → ServiceRequest, keyed by the placer number, else the filler number, else the message. */
export function serviceRequest(ctx: ConversionContext, g: OrderGroup, subject: Subject, opts: ServiceRequestOptions): Ref {
  const ids = orderIds(ctx, g);
  const key = ids.placer ?? ids.filler ?? ctx.messageIdentifier(`ORDER/${g.index}`);
  const { orc, obr } = g;
  const orderStatus = orc ? str(orc.field(5), 1)?.toUpperCase() : undefined;
  const control = orc ? str(orc.field(1), 1)?.toUpperCase() : undefined;
  const status = (orderStatus && ORDER_STATUS[orderStatus]) || (control && ORDER_CONTROL_STATUS[control]) || "unknown";
  const t = timing(g);
  const priorityCode = (t.priority ?? (obr ? str(obr.field(5), 1) : undefined))?.toUpperCase();
  const requester = practitioner(ctx, orc ? reps(orc.field(12))[0] : undefined) ?? practitioner(ctx, obr ? reps(obr.field(16))[0] : undefined);
  const callback = obr ? xtnContact(ctx, obr.field(17).rep(1)) : orc ? xtnContact(ctx, orc.field(14).rep(1)) : undefined;
  const resource: Resource = {
    resourceType: "ServiceRequest",
    identifier: [ids.placer, ids.filler, key === ids.placer || key === ids.filler ? undefined : key],
    requisition: ids.group,
    status,
    intent: obr && str(obr.field(11), 1)?.toUpperCase() === "G" ? "reflex-order" : "order",
    priority: priorityCode ? ORDER_PRIORITY[priorityCode] : undefined,
    code: obr ? cwe(ctx, obr.field(4).rep(1)) : undefined,
    subject: subject.patient,
    encounter: subject.encounter,
    occurrenceDateTime: dateTime(ctx, t.start) ?? (obr ? dateTime(ctx, str(obr.field(6), 1)) : undefined),
    authoredOn: orc ? dateTime(ctx, str(orc.field(9), 1)) : undefined,
    requester,
    reasonCode: obr ? reps(obr.field(31)).map((r) => cwe(ctx, r)) : undefined,
    reasonReference: opts.reasonReference,
    note: g.notes.length ? g.notes.map((text) => ({ text })) : undefined,
  };
  if (callback) resource.extension = [{ url: "http://hl7.org/fhir/StructureDefinition/servicerequest-order-callback-phone-number", valueContactPoint: callback }];
  const ref = ctx.add(resource, opts.mode, `ServiceRequest|${key.system}|${key.value}`, identifierCondition(key));
  return { reference: ref };
}

/** OBR (+ ORC) → DiagnosticReport with its Observations as results, keyed by the filler number, else placer, else the message. */
export function diagnosticReport(ctx: ConversionContext, g: OrderGroup, subject: Subject, basedOn: Ref | undefined, results: Ref[]): Ref | undefined {
  const obr = g.obr;
  if (!obr) return undefined;
  const ids = orderIds(ctx, g);
  const key = ids.filler ?? ids.placer ?? ctx.messageIdentifier(`OBR/${g.index}`);
  const statusCode = str(obr.field(25), 1)?.toUpperCase();
  const category = str(obr.field(24), 1);
  const start = dateTime(ctx, str(obr.field(7), 1));
  const end = dateTime(ctx, str(obr.field(8), 1));
  const issuedRaw = str(obr.field(22), 1);
  const interpreter = reps(obr.field(32))
    .map((r) => practitionerFromCnn(ctx, r.part(1)))
    .filter(Boolean);
  const resource: Resource = {
    resourceType: "DiagnosticReport",
    identifier: [ids.filler, ids.placer, key === ids.filler || key === ids.placer ? undefined : key],
    basedOn: basedOn ? [basedOn] : undefined,
    status: (statusCode && RESULT_STATUS[statusCode]) || "unknown",
    category: category ? [{ coding: [{ system: V2("0074"), code: category }] }] : undefined,
    code: cwe(ctx, obr.field(4).rep(1)) ?? { text: "Diagnostic report" },
    subject: subject.patient,
    encounter: subject.encounter,
    effectiveDateTime: end ? undefined : start,
    effectivePeriod: end ? validPeriod({ start, end }) : undefined,
    issued: issuedRaw ? toFhirInstant(issuedRaw, ctx.tz) : undefined,
    resultsInterpreter: interpreter,
    result: results,
  };
  const ref = ctx.add(resource, "update", `DiagnosticReport|${key.system}|${key.value}`, identifierCondition(key));
  return { reference: ref };
}
