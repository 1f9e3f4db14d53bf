// Envelope checks: control numbers that must match between header and trailer, and the
// counts trailers carry (IEA01 groups, GE01 transaction sets, SE01 segments from ST to SE).

import { X12Error } from "./errors";
import { el, type FunctionalGroup, type Interchange, type TransactionSet, type X12Document } from "./model";

const num = (v: string) => (/^\d+$/.test(v.trim()) ? Number(v.trim()) : Number.NaN);

export function checkTransaction(tx: TransactionSet): X12Error[] {
  const se = tx.se;
  if (!se) return []; // reported by the tokenizer
  const issues: X12Error[] = [];
  const place = { segmentIndex: se.index, segmentId: "SE", loop: "SE", positionInSet: tx.body.length + 2 };
  if (el(se, 2) !== el(tx.st, 2)) issues.push(new X12Error("SE_CONTROL_MISMATCH", `SE02 '${el(se, 2)}' does not match ST02 '${el(tx.st, 2)}'`, { ...place, element: 2 }));
  const count = tx.body.length + 2;
  if (num(el(se, 1)) !== count) issues.push(new X12Error("SE_COUNT_MISMATCH", `SE01 says ${el(se, 1) || "nothing"} but the set holds ${count} segments (ST and SE included)`, { ...place, element: 1 }));
  return issues;
}

/** Problems of the group's own envelope (GS/GE), not of its sets. */
export function checkGroup(group: FunctionalGroup): X12Error[] {
  const ge = group.ge;
  const issues: X12Error[] = [];
  if (!ge) return issues;
  const place = { segmentIndex: ge.index, segmentId: "GE" };
  if (num(el(ge, 2)) !== num(el(group.gs, 6))) issues.push(new X12Error("GE_CONTROL_MISMATCH", `GE02 '${el(ge, 2)}' does not match GS06 '${el(group.gs, 6)}'`, { ...place, element: 2 }));
  if (num(el(ge, 1)) !== group.transactions.length) issues.push(new X12Error("GE_COUNT_MISMATCH", `GE01 says ${el(ge, 1) || "nothing"} but the group holds ${group.transactions.length} transaction sets`, { ...place, element: 1 }));
  return issues;
}

/** Problems of the interchange's own envelope (ISA/IEA), not of its groups. */
export function checkInterchange(ix: Interchange): X12Error[] {
  const iea = ix.iea;
  const issues: X12Error[] = [];
  if (!iea) return issues;
  const place = { segmentIndex: iea.index, segmentId: "IEA" };
  if (el(iea, 2) !== el(ix.isa, 13)) issues.push(new X12Error("IEA_CONTROL_MISMATCH", `IEA02 '${el(iea, 2)}' does not match ISA13 '${el(ix.isa, 13)}'`, { ...place, element: 2 }));
  if (num(el(iea, 1)) !== ix.groups.length) issues.push(new X12Error("IEA_COUNT_MISMATCH", `IEA01 says ${el(iea, 1) || "nothing"} but the interchange holds ${ix.groups.length} functional groups`, { ...place, element: 1 }));
  return issues;
}

/** Every envelope problem of a document. */
export function checkEnvelopes(doc: X12Document): X12Error[] {
  return doc.interchanges.flatMap((ix) => [...checkInterchange(ix), ...ix.groups.flatMap((g) => [...checkGroup(g), ...g.transactions.flatMap(checkTransaction)])]);
}
