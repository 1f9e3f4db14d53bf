// One call from X12 text to checked loops: tokenize, check envelopes, pick each set's
// loop table, group its segments into loops. Every issue is attached to the envelope
// level it belongs to, which is what the 999 and TA1 answer per level.

import { checkGroup, checkInterchange, checkTransaction } from "./envelope";
import { X12Error } from "./errors";
import { type LoopNode, readLoops } from "./loops";
import { el, type FunctionalGroup, type Interchange, type TransactionSet, type X12Document } from "./model";
import type { SetTable } from "./table";
import { tableFor } from "./tables/index";
import { tokenize } from "./tokenize";

export interface ReadTransaction {
  tx: TransactionSet;
  /** Undefined when the set or its version is not supported (issue UNSUPPORTED_SET). */
  table?: SetTable;
  root?: LoopNode;
  issues: X12Error[];
}

export interface ReadGroup {
  group: FunctionalGroup;
  /** Issues of the group itself (GE, GS08), not of its sets. */
  issues: X12Error[];
  transactions: ReadTransaction[];
}

export interface ReadInterchange {
  interchange: Interchange;
  /** Issues of the interchange envelope itself (IEA, segments between groups). */
  issues: X12Error[];
  groups: ReadGroup[];
}

export interface X12Read {
  document: X12Document;
  interchanges: ReadInterchange[];
  /** Every transaction set of the file, in order. */
  transactions: ReadTransaction[];
  /** Every issue of the file, in order of position. */
  issues: X12Error[];
}

const lastIndex = (tx: TransactionSet) => tx.se?.index ?? tx.body[tx.body.length - 1]?.index ?? tx.st.index;
const within = (e: X12Error, from: number, to: number) => e.segmentIndex !== undefined && e.segmentIndex >= from && e.segmentIndex <= to;

function readTransaction(tx: TransactionSet, gs: FunctionalGroup, tokenIssues: X12Error[]): ReadTransaction {
  const issues = tokenIssues.filter((e) => within(e, tx.st.index, lastIndex(tx)));
  issues.push(...checkTransaction(tx));
  const table = tableFor(tx.st, gs.gs, tx.body[0]);
  const stPlace = { segmentIndex: tx.st.index, segmentId: "ST", loop: "HEADER", positionInSet: 1 };
  if (!table) {
    issues.push(new X12Error("UNSUPPORTED_SET", `transaction set ${el(tx.st, 1)} version ${el(tx.st, 3) || el(gs.gs, 8)} is not supported`, { ...stPlace, element: 1 }));
    return { tx, issues };
  }
  if (table.st03Unused && el(tx.st, 3)) issues.push(new X12Error("ELEMENT_NOT_USED", `ST03 is not used in the ${table.id} (${table.version}); found '${el(tx.st, 3)}'`, { ...stPlace, element: 3 }));
  if (!table.st03Unused && el(tx.st, 3) !== table.version) issues.push(new X12Error(el(tx.st, 3) ? "BAD_CODE" : "MISSING_ELEMENT", `ST03 must be ${table.version} for the ${table.id}${el(tx.st, 3) ? `, not '${el(tx.st, 3)}'` : ""}`, { ...stPlace, element: 3 }));
  const { root, issues: loopIssues } = readLoops(tx, table);
  issues.push(...loopIssues);
  return { tx, table, root, issues };
}

function readGroup(group: FunctionalGroup, tokenIssues: X12Error[]): ReadGroup {
  const transactions = group.transactions.map((tx) => readTransaction(tx, group, tokenIssues));
  const issues = checkGroup(group);
  const end = group.ge?.index ?? lastIndex(group.transactions[group.transactions.length - 1] ?? { st: group.gs, body: [] });
  const inSets = (e: X12Error) => group.transactions.some((tx) => within(e, tx.st.index, lastIndex(tx)));
  issues.unshift(...tokenIssues.filter((e) => within(e, group.gs.index, end) && !inSets(e)));
  const versions = new Set(transactions.map((t) => t.table?.version).filter((v) => v !== undefined));
  const gs08 = el(group.gs, 8);
  if (versions.size && !versions.has(gs08)) issues.push(new X12Error("BAD_CODE", `GS08 '${gs08}' does not identify the implementation of its sets (${[...versions].join(", ")})`, { segmentIndex: group.gs.index, segmentId: "GS", element: 8 }));
  return { group, issues, transactions };
}

/** Reads and checks X12 text. Throws X12Error only when no interchange can be read at all. */
export function readX12(text: string): X12Read {
  const { document, issues: tokenIssues } = tokenize(text);
  const interchanges = document.interchanges.map((ix, n): ReadInterchange => {
    const groups = ix.groups.map((g) => readGroup(g, tokenIssues));
    const own = checkInterchange(ix);
    const end = ix.iea?.index ?? (document.interchanges[n + 1]?.isa.index ?? Number.MAX_SAFE_INTEGER) - 1;
    const inGroups = (e: X12Error) => ix.groups.some((g) => within(e, g.gs.index, g.ge?.index ?? lastIndex(g.transactions[g.transactions.length - 1] ?? { st: g.gs, body: [] })));
    own.unshift(...tokenIssues.filter((e) => within(e, ix.isa.index, end) && !inGroups(e)));
    return { interchange: ix, issues: own, groups };
  });
  const transactions = interchanges.flatMap((i) => i.groups.flatMap((g) => g.transactions));
  const issues = interchanges.flatMap((i) => [...i.issues, ...i.groups.flatMap((g) => [...g.issues, ...g.transactions.flatMap((t) => t.issues)])]);
  issues.sort((a, b) => (a.segmentIndex ?? 0) - (b.segmentIndex ?? 0));
  return { document, interchanges, transactions, issues };
}
