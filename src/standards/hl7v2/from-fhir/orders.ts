// Order groups: ServiceRequest → ORC (+ TQ1) and OBR, DiagnosticReport → OBR with its
// results as OBX: the converter's ORC/OBR maps (convert/orders.ts) backwards. Where the
// timing goes depends on the version (TQ1 from v2.5, ORC-7/OBR-27 before; ORM keeps
// ORC-7 until v2.7, as its message structure has no TQ1 before).

import type { Resource } from "../../../platform/fhir-resource";
import type { Hl7Segment } from "../message";
import type { EncodeContext } from "./context";
import { cnn, codeOf, cwe, dtm, ei, identifierTyped, xcn, xtn } from "./datatypes";
import { type Json, list, obj, text } from "./input";
import { notes, obx } from "./clinical";
import { realIdentifiers } from "./people";
import { ORDER_STATUS_CODE, PRIORITY_CODE, RESULT_STATUS_CODE } from "./vocab";
import { type Fields, type Rep, repeat } from "./writer";

const CALLBACK = "http://hl7.org/fhir/StructureDefinition/servicerequest-order-callback-phone-number";
const SECTION = "http://terminology.hl7.org/CodeSystem/v2-0074";

export type OrderFamily = "ORU" | "ORM" | "OML" | "MDM";

export interface OrderGroup {
  request?: Resource;
  report?: Resource;
  /** OBX of the group, in order. */
  observations: Resource[];
  /** DG1 of the group (ORM/OML: the Conditions the request gives as its reason). */
  conditions?: Hl7Segment[];
  /** OBR-4 when neither the report nor the request has a code. */
  code?: unknown;
}

/** Placer and filler numbers: identifiers typed PLAC/FILL (the report's, else the request's); an untyped one is the filler's for a report, the placer's for a request. */
function orderNumbers(ctx: EncodeContext, g: OrderGroup): { placer?: Json; filler?: Json } {
  const own = realIdentifiers(ctx, g.report?.identifier);
  const req = realIdentifiers(ctx, g.request?.identifier);
  const untyped = (ids: Json[]) => ids.find((i) => !obj(i.type));
  return {
    placer: identifierTyped(own, "PLAC") ?? identifierTyped(req, "PLAC") ?? (g.report ? undefined : untyped(req)),
    filler: identifierTyped(own, "FILL") ?? identifierTyped(req, "FILL") ?? (g.report ? untyped(own) : undefined),
  };
}

function callback(ctx: EncodeContext, r: Resource | undefined): Rep | undefined {
  return xtn(ctx, obj(list(r?.extension).find((e) => e.url === CALLBACK)?.valueContactPoint));
}

/** ORC-1 order control for a request's status (ORU results: RE). */
function orderControl(family: OrderFamily, status: string | undefined): string {
  if (family === "ORU") return "RE";
  if (status === "revoked" || status === "entered-in-error") return "CA";
  if (status === "on-hold") return "HD";
  if (status === "completed") return "SC";
  return "NW";
}

interface Timing {
  start?: string;
  priority?: string;
}

function timingOf(ctx: EncodeContext, sr: Resource | undefined): Timing {
  if (!sr) return {};
  const priority = text(sr.priority);
  return {
    start: dtm(ctx, sr.occurrenceDateTime ?? obj(sr.occurrencePeriod)?.start, "ServiceRequest.occurrence"),
    priority: priority ? PRIORITY_CODE[priority] : undefined,
  };
}

/** TQ (ORC-7, OBR-27 before TQ1): start in TQ.4, priority in TQ.6. */
const tq = (t: Timing): Rep | undefined => (t.start || t.priority ? [undefined, undefined, undefined, t.start, undefined, t.priority] : undefined);

/** The segments of one order group, ORC first when there is one. */
export function orderGroup(ctx: EncodeContext, family: OrderFamily, g: OrderGroup, setId: number): Hl7Segment[] {
  const sr = ctx.input.use(g.request);
  const dr = ctx.input.use(g.report);
  const { placer, filler } = orderNumbers(ctx, g);
  const status = text(sr?.status);
  const statusCode = status ? ORDER_STATUS_CODE[status] : undefined;
  // A result's ORC says something only when the request has a status, group number or date (the converter reads the rest from OBR).
  const withOrc = !!sr && (family !== "ORU" || !!statusCode || !!obj(sr.requisition) || !!sr.authoredOn);
  const timing = timingOf(ctx, sr);
  const useTq1 = ctx.atLeast(family === "ORM" ? "2.7" : "2.5");
  const requester = xcn(ctx, sr?.requester);
  const segments: Hl7Segment[] = [];
  if (withOrc) {
    segments.push(
      ctx.segment("ORC", {
        1: orderControl(family, status),
        2: ei(ctx, placer),
        3: ei(ctx, filler),
        4: ei(ctx, obj(sr!.requisition)),
        5: statusCode,
        7: useTq1 ? undefined : tq(timing),
        9: dtm(ctx, sr!.authoredOn, "ServiceRequest.authoredOn"),
        12: requester,
        14: callback(ctx, sr),
      }),
    );
  }
  const tq1 = useTq1 && (timing.start || timing.priority) ? ctx.segment("TQ1", { 1: 1, 7: timing.start, 9: timing.priority ? [timing.priority, undefined, "HL70485"] : undefined }) : undefined;
  if (tq1 && family !== "ORU") segments.push(tq1);
  const code = cwe(ctx, dr?.code) ?? cwe(ctx, sr?.code) ?? cwe(ctx, g.code);
  if (code) {
    const effective = obj(dr?.effectivePeriod);
    const fields: Fields = {
      1: setId,
      2: ei(ctx, placer),
      3: ei(ctx, filler),
      4: code,
      7: dtm(ctx, dr?.effectiveDateTime ?? effective?.start, "DiagnosticReport.effective"),
      8: dtm(ctx, effective?.end, "DiagnosticReport.effectivePeriod.end"),
      11: sr?.intent === "reflex-order" ? "G" : undefined,
      16: requester,
      17: callback(ctx, sr),
      22: dtm(ctx, dr?.issued, "DiagnosticReport.issued"),
      24: codeOf(list(dr?.category).find((c) => codeOf(c, SECTION)) ?? list(dr?.category)[0], SECTION) ?? codeOf(list(dr?.category)[0]),
      25: text(dr?.status) ? RESULT_STATUS_CODE[text(dr?.status)!] : undefined,
      27: !useTq1 && !withOrc ? tq(timing) : undefined,
      31: repeat(list(sr?.reasonCode).map((c) => cwe(ctx, c))),
      32: repeat(list(dr?.resultsInterpreter).map((r) => [cnn(ctx, r)] as Rep)),
    };
    segments.push(ctx.segment("OBR", fields));
  } else if (family === "ORU" || !withOrc) {
    ctx.warn("an order group without a code: OBR-4 is required, the OBR is left out");
  }
  segments.push(...notes(ctx, sr?.note));
  if (tq1 && family === "ORU") segments.push(tq1);
  if (g.conditions) segments.push(...g.conditions);
  for (const [i, o] of g.observations.entries()) segments.push(...obx(ctx, o, i + 1));
  return segments;
}

/** A DiagnosticReport's results that the input holds, in order; the others are named in a warning. */
export function resultsOf(ctx: EncodeContext, report: Resource): Resource[] {
  const out: Resource[] = [];
  for (const ref of list(report.result)) {
    const o = ctx.input.resolve(ref, "Observation");
    if (o) out.push(o);
    else ctx.warn(`DiagnosticReport.result ${JSON.stringify(obj(ref)?.reference ?? ref)} is not in the input: left out`);
  }
  return out;
}
