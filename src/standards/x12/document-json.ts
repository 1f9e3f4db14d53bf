// The JSON model of a whole file (what X12 Parse outputs and X12 Build takes back):
// interchanges → groups → transaction sets, each set as its loop tree (or, for a set
// without a table, its segments), with the ISA and GS kept as segments so that
// JSON → X12 writes the same envelope again. Control numbers and counts of the trailers
// are recomputed on writing (writeX12), never taken from the JSON.
import { type JsonLoop, type JsonSegment, loopsToJson, segmentFromJson, segmentsFromJson, segmentToJson } from "./json";
import { el, type Interchange, type X12Document } from "./model";
import type { X12Read } from "./read";
import { DEFAULT_DELIMITERS } from "./build";

export interface TransactionJson {
  /** The loop table's id (837P, 277CA, 278-request...), or ST01 when the set has no table. */
  set: string;
  st: JsonSegment;
  /** The loop tree of a supported set. */
  loops?: JsonLoop;
  /** The body (ST to SE exclusive) of a set without a table. */
  segments?: JsonSegment[];
}

export interface GroupJson {
  functional_id: string;
  control: string;
  version: string;
  gs: JsonSegment;
  transactions: TransactionJson[];
}

export interface InterchangeJson {
  sender: string;
  receiver: string;
  control: string;
  usage: string;
  isa: JsonSegment;
  delimiters: { element: string; component: string; repetition?: string; segment: string };
  ta1?: JsonSegment[];
  groups: GroupJson[];
}

export function readToJson(read: X12Read): InterchangeJson[] {
  return read.interchanges.map(({ interchange: ix, groups }) => ({
    sender: el(ix.isa, 6).trim(),
    receiver: el(ix.isa, 8).trim(),
    control: el(ix.isa, 13),
    usage: el(ix.isa, 15),
    isa: segmentToJson(ix.isa),
    delimiters: { ...ix.delimiters },
    ...(ix.ta1?.length ? { ta1: ix.ta1.map(segmentToJson) } : {}),
    groups: groups.map(({ group: g, transactions }) => ({
      functional_id: el(g.gs, 1),
      control: el(g.gs, 6),
      version: el(g.gs, 8),
      gs: segmentToJson(g.gs),
      transactions: transactions.map((t) => ({
        set: t.table?.id ?? el(t.tx.st, 1),
        st: segmentToJson(t.tx.st),
        ...(t.root ? { loops: loopsToJson(t.root) } : { segments: t.tx.body.map(segmentToJson) }),
      })),
    })),
  }));
}

/** The document the JSON describes; a set's body comes from its loops, else its segments. */
export function documentFromJson(interchanges: readonly InterchangeJson[]): X12Document {
  return {
    interchanges: interchanges.map(
      (ix): Interchange => ({
        isa: segmentFromJson(ix.isa),
        delimiters: ix.delimiters ?? DEFAULT_DELIMITERS,
        ...(ix.ta1?.length ? { ta1: ix.ta1.map(segmentFromJson) } : {}),
        groups: ix.groups.map((g) => ({
          gs: segmentFromJson(g.gs),
          transactions: g.transactions.map((t) => ({ st: segmentFromJson(t.st), body: t.loops ? segmentsFromJson(t.loops) : (t.segments ?? []).map(segmentFromJson) })),
        })),
      }),
    ),
  };
}
