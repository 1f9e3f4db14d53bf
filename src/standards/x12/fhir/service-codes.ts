// Codes several mappings read the same way: HI diagnosis composites and service code
// composites (SV101, SV202, SVC01) with their modifiers.
import type { LoopNode } from "../loops";
import { components } from "../model";
import { segs } from "../query";
import { DIAGNOSIS_QUALIFIERS, SYSTEM, serviceSystem } from "./codes";
import { clean } from "./values";

/** HI composites of a claim in order: [qualifier, code]. */
export function diagnoses(claim: LoopNode): { qualifier: string; code: string }[] {
  const out: { qualifier: string; code: string }[] = [];
  for (const hi of segs(claim, "HI")) {
    for (const v of hi.elements) {
      const [qualifier = "", code = ""] = components(v);
      if (DIAGNOSIS_QUALIFIERS[qualifier] && code) out.push({ qualifier, code });
    }
  }
  return out;
}

/** A service code composite (SV101, SV202, SVC01) as productOrService and modifiers. */
export function serviceCode(value: string): { productOrService: Record<string, unknown>; modifier?: Record<string, unknown>[] } {
  const [qualifier = "", code = "", ...mods] = components(value);
  // No code component (a composite written with the wrong separator; the reader reports it): keep the value as text.
  if (!code) return { productOrService: { text: value } };
  const modifiers = mods.slice(0, 4).filter(Boolean);
  return clean({
    productOrService: { coding: [{ system: serviceSystem(qualifier, code), code }] },
    modifier: modifiers.length ? modifiers.map((m) => ({ coding: [{ system: SYSTEM.hcpcs, code: m }] })) : undefined,
  });
}

