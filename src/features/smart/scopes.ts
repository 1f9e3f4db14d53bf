// The SMART scopes a client may be registered for and request. Backend clients: system/ scopes,
// v1 (`system/Patient.read`, `.write`, `.*`) and v2 (`system/Observation.rs`, any ordered subset
// of c r u d s). Apps a user authorizes: patient/ and user/ scopes (v1 or v2, granular), and the
// identity and launch scopes (openid, fhirUser, launch, launch/patient, offline_access...).
// Enforcing the resource scopes is the FHIR store's access policy (from principal.fhirGrant); here
// they are only checked for shape and granted as a subset of the client's registration. Plain:
// no imports, so Node's unit tests take it as it is.

const SYSTEM_SCOPE = /^system\/(\*|[A-Z][A-Za-z]{1,63})\.(\*|read|write|c?r?u?d?s?)$/;
const RESOURCE_SCOPE = /^(patient|user|system)\/(\*|[A-Z][A-Za-z]{1,63})\.(\*|read|write|c?r?u?d?s?)(\?.+)?$/;

/** Scopes that ask for identity, launch context or a refresh token, never for data. */
export const CONTEXT_SCOPES = ["openid", "fhirUser", "profile", "launch", "launch/patient", "launch/encounter", "offline_access", "online_access"] as const;
const CONTEXT = new Set<string>(CONTEXT_SCOPES);

export function isSystemScope(scope: string): boolean {
  const m = SYSTEM_SCOPE.exec(scope);
  return m !== null && m[2] !== "";
}

/** A scope an app a user authorizes may carry: patient/ or user/ resource scopes, or a context scope. */
export function isAppScope(scope: string): boolean {
  if (CONTEXT.has(scope)) return true;
  const m = RESOURCE_SCOPE.exec(scope);
  return m !== null && m[1] !== "system" && m[3] !== "";
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

/**
 * A refresh's scope parameter (RFC 6749 §6): absent, the grant's scopes; present, a subset of
 * them (narrowed, never widened). `beyond` names what the grant does not hold.
 */
export function narrowScopes(requested: string | undefined, granted: readonly string[]): { scopes: string[] } | { beyond: string[] } {
  if (requested === undefined || !requested.trim()) return { scopes: [...granted] };
  const scopes = parseScopeParam(requested);
  const beyond = scopesBeyond(scopes, granted);
  return beyond.length ? { beyond } : { scopes };
}

/** Whether the granted scopes ask for a refresh token, and which kind. */
export function refreshKindOf(scopes: readonly string[]): "offline" | "online" | undefined {
  if (scopes.includes("offline_access")) return "offline";
  if (scopes.includes("online_access")) return "online";
  return undefined;
}

/** Every scope a registration may name, for the smart-configuration's scopes_supported. */
export const SUPPORTED_SCOPE_EXAMPLES = [
  ...CONTEXT_SCOPES,
  "patient/*.rs",
  "patient/*.read",
  "user/*.rs",
  "user/*.cruds",
  "user/*.read",
  "system/*.read",
  "system/*.rs",
  "system/*.cruds",
  "system/*.write",
  "system/*.*",
];

const CONTEXT_WORDS: Readonly<Record<string, string>> = {
  openid: "Know who you are (your identity, as a signed token)",
  fhirUser: "Know your FHIR user record (who you are in this organization's records)",
  profile: "Know your profile",
  launch: "Use the patient (and encounter) open in the console when it was launched",
  "launch/patient": "Know which patient is selected",
  "launch/encounter": "Know which encounter is selected",
  offline_access: "Keep access after you sign out, until the access is revoked",
  online_access: "Keep access while you stay signed in to the console",
};

const LETTERS: Readonly<Record<string, string>> = { c: "create", r: "read", u: "update", d: "delete", s: "search" };
const V1: Readonly<Record<string, string>> = { read: "rs", write: "cud", "*": "cruds" };

/** A scope in words for the consent screen: what the app could do, and over whose data. */
export function describeScope(scope: string): string {
  const words = CONTEXT_WORDS[scope];
  if (words) return words;
  const m = RESOURCE_SCOPE.exec(scope);
  if (!m) return `Unrecognized permission "${scope}"`;
  const [, context, type, perms, query] = m as unknown as [string, string, string, string, string | undefined];
  const letters = V1[perms] ?? perms;
  const verbs = [...letters].map((l) => LETTERS[l] ?? l);
  const list = verbs.length > 1 ? `${verbs.slice(0, -1).join(", ")} and ${verbs.at(-1)}` : (verbs[0] ?? "");
  const what = type === "*" ? "all kinds of records" : `${type} records`;
  const whose = context === "patient" ? "of the selected patient" : context === "user" ? "that you can access" : "of the whole organization";
  const narrowed = query ? ` (only those with ${decodeURIComponent(query.slice(1)).replace(/&/g, " and ")})` : "";
  return `${list[0]?.toUpperCase() ?? ""}${list.slice(1)} ${what} ${whose}${narrowed}`;
}
