// The loop table for a transaction set, picked by ST01, the version (ST03, or GS08 where
// ST03 is not used) and, for the 278 and 277CA, by BHT.
import type { Segment } from "../model";
import { el } from "../model";
import type { SetId, SetTable } from "../table";
import { X270, X271 } from "./x270-271";
import { X276, X277, X277CA } from "./x276-277";
import { X278Request, X278Response } from "./x278";
import { X835 } from "./x835";
import { X837I } from "./x837i";
import { X837P } from "./x837p";

export const TABLES: Readonly<Record<SetId, SetTable>> = {
  "270": X270,
  "271": X271,
  "276": X276,
  "277": X277,
  "277CA": X277CA,
  "278-request": X278Request,
  "278-response": X278Response,
  "835": X835,
  "837P": X837P,
  "837I": X837I,
};

/** Version family without the errata suffix: "005010X222A1" → "005010X222". */
const family = (v: string) => /^\d{6}X\d{3}/.exec(v)?.[0] ?? v;

/** The table for a set, or undefined when the set/version is not one we know. */
export function tableFor(st: Segment, gs: Segment | undefined, firstBody: Segment | undefined): SetTable | undefined {
  const set = el(st, 1);
  const version = el(st, 3) || el(gs, 8);
  const candidates = Object.values(TABLES).filter((t) => t.set === set && family(t.version) === family(version));
  if (candidates.length <= 1) return candidates[0];
  const purpose = firstBody?.id === "BHT" ? el(firstBody, 2) : "";
  return candidates.find((t) => t.id === (purpose === "11" ? "278-response" : "278-request"));
}
