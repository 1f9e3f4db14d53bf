// Policies that must all permit (deny wins): the SMART scopes of a token, the access policy of its
// credential and the organization's consent, each deciding alone; search scopes add up (AND),
// redactions and restorations apply one after another. Policies that permit everything drop out, so when all do the
// result is permitAll and the store keeps its fast paths (no check, no parse).
import { type AccessAuditNote, type AccessDecision, type AccessPolicy, PERMIT, type SearchScope, permitAll } from "./access-policy";
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
    // Only where some policy narrows searches, hides or keeps fields: the store skips what none does.
    ...(deciding.some((p) => p.searchScope) && {
      async searchScope(principal, types) {
        const scopes: SearchScope[] = [];
        for (const p of deciding) scopes.push(...((await p.searchScope?.(principal, types)) ?? []));
        return scopes;
      },
    }),
    ...(deciding.some((p) => p.redact) && {
      async redact(principal, resource) {
        let shown = resource;
        for (const p of deciding) if (p.redact) shown = await p.redact(principal, shown);
        return shown;
      },
    }),
    ...(deciding.some((p) => p.restore) && {
      async restore(principal, written, current) {
        let kept = written;
        for (const p of deciding) if (p.restore) kept = await p.restore(principal, kept, current);
        return kept;
      },
    }),
    auditNote: () => mergedNote(deciding.map((p) => p.auditNote?.())),
  };
}

function mergedNote(notes: (AccessAuditNote | undefined)[]): AccessAuditNote | undefined {
  const present = notes.filter((n): n is AccessAuditNote => n !== undefined);
  if (!present.length) return undefined;
  return { basis: [...new Set(present.flatMap((n) => n.basis))], purposes: [...new Set(present.flatMap((n) => n.purposes))] };
}
