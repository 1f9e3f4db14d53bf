// X12 → FHIR: one transaction Bundle per transaction set, by its loop table.
import type { Bundle } from "../../../platform/fhir-resource";
import { X12Error } from "../errors";
import { el } from "../model";
import { seg1 } from "../query";
import type { ReadTransaction, X12Read } from "../read";
import type { SetId } from "../table";
import { map837 } from "./claim-837";
import { FhirOutput, type MapOptions } from "./context";
import { map270, map271 } from "./eligibility";
import { map835 } from "./payment-835";
import { map278Request, map278Response } from "./review-278";
import { map276, map277 } from "./status";
import { date } from "./values";
import { isLoopNode, type LoopNode } from "../loops";

export type { Match, MapOptions, ReferenceResolver } from "./context";
export { matchQuery } from "./context";

type Mapper = (out: FhirOutput, root: LoopNode, created: string) => Promise<void>;

const MAPPERS: Readonly<Record<SetId, Mapper>> = {
  "837P": (out, root, created) => map837(out, root, false, created),
  "837I": (out, root, created) => map837(out, root, true, created),
  "835": map835,
  "270": map270,
  "271": map271,
  "276": map276,
  "277": map277,
  "277CA": map277,
  "278-request": map278Request,
  "278-response": map278Response,
};

export interface SetBundle {
  set: SetId;
  /** ST02. */
  control: string;
  bundle: Bundle;
  /** The set's issues: a set with issues is mapped as far as its content allows. */
  issues: X12Error[];
}

/** When the set was made: BHT04 (835: DTM*405, else BPR16), else GS04. */
function createdOf(t: ReadTransaction, gs04: string): string {
  const root = t.root!;
  const bht = seg1(root, "BHT");
  const d = date(el(bht, 4)) ?? date(el(seg1(root, "DTM", ["405"]), 2)) ?? date(el(seg1(root, "BPR"), 16)) ?? date(gs04);
  if (!d) throw new X12Error("MISSING_ELEMENT", "the set has no date (BHT04, DTM*405, BPR16 or GS04)", { segmentId: bht ? "BHT" : "GS", element: 4 });
  return d;
}

/** The first loop read without its trigger segment (an 837's 2300 without CLM), anywhere below `node`. */
function headless(node: LoopNode): LoopNode | undefined {
  if (node.missingTrigger) return node;
  for (const c of node.children) {
    const hit = isLoopNode(c) ? headless(c) : undefined;
    if (hit) return hit;
  }
  return undefined;
}

/** Maps one read transaction set; throws X12Error UNSUPPORTED_SET for a set without a table. */
export async function setToFhir(t: ReadTransaction, envelope: { sender: string; interchangeControl: string; groupControl: string; groupDate: string }, options: MapOptions = {}): Promise<SetBundle> {
  if (!t.table || !t.root) throw new X12Error("UNSUPPORTED_SET", `transaction set ${el(t.tx.st, 1)} is not supported`, { segmentIndex: t.tx.st.index, segmentId: "ST", element: 1 });
  // A loop without its trigger has no resource to make: never a half-made one.
  const broken = headless(t.root);
  if (broken) throw new X12Error("MISSING_SEGMENT", `loop ${broken.loop} (${broken.name}) has no ${broken.missingTrigger}: the FHIR mapping needs it`, { loop: broken.loop, segmentId: broken.missingTrigger });
  const control = el(t.tx.st, 2);
  const out = new FhirOutput(`${envelope.sender}|${envelope.interchangeControl}|${envelope.groupControl}|${control}`, options);
  await MAPPERS[t.table.id](out, t.root, createdOf(t, envelope.groupDate));
  return { set: t.table.id, control, bundle: out.bundle(), issues: t.issues };
}

/** Maps every supported set of a read file, in order. */
export async function x12ToFhir(read: X12Read, options: MapOptions = {}): Promise<SetBundle[]> {
  const out: SetBundle[] = [];
  for (const ix of read.interchanges) {
    for (const g of ix.groups) {
      for (const t of g.transactions) {
        if (!t.table) continue;
        const env = { sender: el(ix.interchange.isa, 6).trim(), interchangeControl: el(ix.interchange.isa, 13), groupControl: el(g.group.gs, 6), groupDate: el(g.group.gs, 4) };
        out.push(await setToFhir(t, env, options));
      }
    }
  }
  return out;
}
