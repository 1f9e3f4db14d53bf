// Which scopes a new API key may carry: an agent scope must name an agent of the key's
// organization, since a key scoped to nothing (or to another org's agent) is a mistake.
import { validationFailed } from "../../../platform/errors";
import { scopedAgentId } from "./permissions";

/** The agents the scopes name, each once. */
export function scopedAgentIds(scopes: readonly string[]): string[] {
  return [...new Set(scopes.map(scopedAgentId).filter((id): id is string => id !== undefined))];
}

/** 400 with one field error per scope naming an agent not in `existing` (the org's agents among them). */
export function checkScopedAgents(scopes: readonly string[], existing: ReadonlySet<string>): void {
  const missing = scopes.flatMap((scope, i) => {
    const id = scopedAgentId(scope);
    return id !== undefined && !existing.has(id) ? [{ id, path: `scopes.${i}` }] : [];
  });
  if (missing.length) {
    throw validationFailed(
      `No agent ${missing.map((m) => m.id).join(", ")} in this organization`,
      missing.map((m) => ({ path: m.path, message: `No agent ${m.id} in this organization` })),
    );
  }
}
