// The system/ SMART scopes a backend client may be registered for and request: v1
// (`system/Patient.read`, `.write`, `.*`) and v2 (`system/Observation.rs`, any ordered subset of
// c r u d s). Enforcing them is the FHIR store's access policy (from principal.fhirGrant); here
// they are only checked for shape and granted as a subset of the client's registration.

const SYSTEM_SCOPE = /^system\/(\*|[A-Z][A-Za-z]{1,63})\.(\*|read|write|c?r?u?d?s?)$/;

export function isSystemScope(scope: string): boolean {
  const m = SYSTEM_SCOPE.exec(scope);
  return m !== null && m[2] !== "";
}

/** The scope parameter's space-separated scopes, deduplicated in order. */
export function parseScopeParam(raw: string): string[] {
  return [...new Set(raw.split(/[ ]+/).filter(Boolean))];
}

/** Requested scopes the client is not registered for (exact match: a registration grants what it names). */
export function scopesBeyond(requested: readonly string[], allowed: readonly string[]): string[] {
  const granted = new Set(allowed);
  return requested.filter((s) => !granted.has(s));
}

/** Every scope a registration may name, for the smart-configuration's scopes_supported. */
export const SUPPORTED_SCOPE_EXAMPLES = ["system/*.read", "system/*.rs", "system/*.cruds", "system/*.write", "system/*.*"];
