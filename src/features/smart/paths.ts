// The SMART endpoints' paths under an org's FHIR base (/fhir/r4/{orgId}). Import-free, so the
// discovery documents, the routes and the FHIR CapabilityStatement agree.
export const PATHS = {
  authorize: "/auth/authorize",
  consent: "/auth/authorize/consent",
  token: "/auth/token",
  introspect: "/auth/introspect",
  revoke: "/auth/revoke",
  style: "/auth/smart-style.json",
  jwks: "/.well-known/jwks.json",
} as const;
