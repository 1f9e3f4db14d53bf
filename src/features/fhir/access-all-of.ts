// Policies that must all permit (deny wins): the SMART scopes of a token and the organization's
// consent, each deciding alone. Policies that permit everything drop out, so when all do the
// result is permitAll and the store keeps its fast paths (no check, no parse).
import { type AccessAuditNote, type AccessDecision, type AccessPolicy, PERMIT, permitAll } from "./access-policy";
import type { Resource } from "./port";

export function allOf(...policies: AccessPolicy[]): AccessPolicy {
  const deciding = policies.filter((p) => p.permitsAll !== true);
  if (deciding.length === 0) return permitAll;
  if (deciding.length === 1) return deciding[0]!;
  return {
    permitsAll: false,
    // In order, stopping at the first denial: a later policy (consent) reads nothing for what an earlier one refused.
    async check(request): Promise<AccessDecision> {
      for (const p of deciding) {
        const decision = await p.check(request);
        if (!decision.permit) return decision;
      }
      return PERMIT;
    },
    async filter(principal, action, items, resourceOf) {
      // Each item parsed once, however many policies look at it.
      const parsed = new Map<(typeof items)[number], Resource>();
      const once = (item: (typeof items)[number]) => parsed.get(item) ?? parsed.set(item, resourceOf(item)).get(item)!;
      let kept = items;
      for (const p of deciding) {
        if (!kept.length) break;
        kept = await p.filter(principal, action, kept, once);
      }
      return kept;
    },
    auditNote: () => mergedNote(deciding.map((p) => p.auditNote?.())),
  };
}

function mergedNote(notes: (AccessAuditNote | undefined)[]): AccessAuditNote | undefined {
  const present = notes.filter((n): n is AccessAuditNote => n !== undefined);
  if (!present.length) return undefined;
  return { basis: [...new Set(present.flatMap((n) => n.basis))], purposes: [...new Set(present.flatMap((n) => n.purposes))] };
}
