// The CapabilityStatement, generated from what this FHIR server implements: its interactions,
// the definitions index (with the guides' SearchParameters), the operations registry and the
// guides' actors, so /metadata can never drift from the code.
import { READ_ONLY_TYPES, resourceTypes } from "./definitions";
import { type FhirExtensions, definitionsOf } from "./extensions";
import { actorDocumentation, resourceExtensionsOf, supportedProfilesOf } from "./guide-actors";
import { MODIFIERS } from "./search/parse";

export const TYPE_INTERACTIONS = ["read", "vread", "update", "patch", "delete", "history-instance", "history-type", "create", "search-type"] as const;
const READ_INTERACTIONS = new Set(["read", "vread", "history-instance", "history-type", "search-type"]);
export const SYSTEM_INTERACTIONS = ["transaction", "batch", "search-system", "history-system"] as const;

const RESULT_PARAMS = ["_count", "_sort", "_include", "_revinclude", "_summary", "_elements", "_total", "_type"];

/** `extensions`: the implementation guides' search parameters, operations and the actors this server plays. */
export function capabilityStatement(baseUrl: string, software: { name: string; version: string }, extensions: FhirExtensions): Record<string, unknown> {
  const { operations, guideActors: actors } = extensions;
  const definitions = definitionsOf(extensions);
  const resource = resourceTypes().map((type) => {
    const readOnly = READ_ONLY_TYPES.has(type);
    const searchParam = [
      { name: "_id", type: "token" },
      { name: "_lastUpdated", type: "date" },
      ...definitions.searchParamsOf(type)
        .filter((p) => p.type !== "special" && p.code !== "_id" && p.code !== "_lastUpdated" && (p.expression || p.type === "composite"))
        .map((p) => ({
          name: p.code,
          ...(p.definition ? { definition: p.definition } : {}),
          type: p.type,
          documentation: `Modifiers: ${(MODIFIERS[p.type] ?? []).map((m) => `:${m}`).join(" ") || "none"}`,
        })),
    ];
    const supportedProfile = supportedProfilesOf(actors, type);
    const extension = resourceExtensionsOf(actors, type);
    return {
      ...(extension.length ? { extension } : {}),
      type,
      ...(supportedProfile.length ? { supportedProfile } : {}),
      interaction: TYPE_INTERACTIONS.filter((i) => !readOnly || READ_INTERACTIONS.has(i)).map((code) => ({ code })),
      versioning: "versioned",
      readHistory: true,
      updateCreate: !readOnly,
      conditionalCreate: !readOnly,
      conditionalRead: "not-supported",
      conditionalUpdate: !readOnly,
      conditionalDelete: readOnly ? "not-supported" : "single",
      referencePolicy: ["literal", "logical"],
      searchInclude: [...definitions.searchParamsOf(type).filter((p) => p.type === "reference").map((p) => `${type}:${p.code}`), "*"],
      searchRevInclude: ["*"],
      searchParam,
      operation: operations.forType(type),
    };
  });
  return {
    resourceType: "CapabilityStatement",
    status: "active",
    date: new Date().toISOString(),
    kind: "instance",
    instantiates: [...new Set([...operations.instantiates(), ...actors.flatMap((a) => a.instantiates)])],
    software,
    implementation: { description: "Clinical Data Integration Service FHIR R4 store", url: baseUrl },
    fhirVersion: "4.0.1",
    format: ["application/fhir+json", "json", "application/fhir+xml", "xml"],
    patchFormat: ["application/json-patch+json", "application/fhir+json", "application/fhir+xml"],
    rest: [
      {
        mode: "server",
        ...(actors.length ? { documentation: `Implementation guide actors: ${actorDocumentation(actors)}` } : {}),
        security: {
          // SMART App Launch's oauth-uris: the authorization server's endpoints (features/smart/paths.ts).
          extension: [
            {
              url: "http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris",
              extension: [
                { url: "authorize", valueUri: `${baseUrl}/auth/authorize` },
                { url: "token", valueUri: `${baseUrl}/auth/token` },
                { url: "introspect", valueUri: `${baseUrl}/auth/introspect` },
                { url: "revoke", valueUri: `${baseUrl}/auth/revoke` },
              ],
            },
          ],
          service: [{ coding: [{ system: "http://terminology.hl7.org/CodeSystem/restful-security-service", code: "SMART-on-FHIR" }] }],
          description: "Authorization: Bearer <access token> from the SMART authorization server (App Launch: authorization_code with PKCE; Backend Services: client_credentials), or Bearer <API key> with X-Organization-ID",
        },
        resource,
        interaction: SYSTEM_INTERACTIONS.map((code) => ({ code })),
        searchParam: RESULT_PARAMS.map((name) => ({ name, type: name === "_count" ? "number" : "string" })),
        operation: operations.forSystem(),
      },
    ],
  };
}
