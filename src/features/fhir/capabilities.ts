// The registry of what this FHIR server implements, and the CapabilityStatement generated
// from it (plus the definitions index), so /metadata can never drift from the code.
import { READ_ONLY_TYPES, resourceTypes, searchParamsOf } from "./definitions";
import { MODIFIERS } from "./search/parse";

export const TYPE_INTERACTIONS = ["read", "vread", "update", "patch", "delete", "history-instance", "history-type", "create", "search-type"] as const;
const READ_INTERACTIONS = new Set(["read", "vread", "history-instance", "history-type", "search-type"]);
export const SYSTEM_INTERACTIONS = ["transaction", "batch", "search-system", "history-system"] as const;

const BULK_DATA = "http://hl7.org/fhir/uv/bulkdata";

/** `types`: the resource types whose entry lists the operation; `system`: also listed at rest level. */
export const OPERATIONS = [
  { name: "validate", definition: "http://hl7.org/fhir/OperationDefinition/Resource-validate", types: "*", system: true },
  { name: "everything", definition: "http://hl7.org/fhir/OperationDefinition/Patient-everything", types: "Patient", system: true },
  // Bulk Data Access IG v2 (src/routes/bulk-export.ts).
  { name: "export", definition: `${BULK_DATA}/OperationDefinition/export`, types: "", system: true },
  { name: "patient-export", definition: `${BULK_DATA}/OperationDefinition/patient-export`, types: "Patient", system: false },
  { name: "group-export", definition: `${BULK_DATA}/OperationDefinition/group-export`, types: "Group", system: false },
] as const;

const RESULT_PARAMS = ["_count", "_sort", "_include", "_revinclude", "_summary", "_elements", "_total", "_type"];

export function capabilityStatement(baseUrl: string, software: { name: string; version: string }): Record<string, unknown> {
  const resource = resourceTypes().map((type) => {
    const readOnly = READ_ONLY_TYPES.has(type);
    const searchParam = [
      { name: "_id", type: "token" },
      { name: "_lastUpdated", type: "date" },
      ...searchParamsOf(type)
        .filter((p) => p.type !== "special" && p.code !== "_id" && p.code !== "_lastUpdated" && (p.expression || p.type === "composite"))
        .map((p) => ({
          name: p.code,
          type: p.type,
          documentation: `Modifiers: ${(MODIFIERS[p.type] ?? []).map((m) => `:${m}`).join(" ") || "none"}`,
        })),
    ];
    return {
      type,
      interaction: TYPE_INTERACTIONS.filter((i) => !readOnly || READ_INTERACTIONS.has(i)).map((code) => ({ code })),
      versioning: "versioned",
      readHistory: true,
      updateCreate: !readOnly,
      conditionalCreate: !readOnly,
      conditionalRead: "not-supported",
      conditionalUpdate: !readOnly,
      conditionalDelete: readOnly ? "not-supported" : "single",
      referencePolicy: ["literal", "logical"],
      searchInclude: [...searchParamsOf(type).filter((p) => p.type === "reference").map((p) => `${type}:${p.code}`), "*"],
      searchRevInclude: ["*"],
      searchParam,
      operation: OPERATIONS.filter((o) => o.types === "*" || o.types === type).map((o) => ({ name: o.name, definition: o.definition })),
    };
  });
  return {
    resourceType: "CapabilityStatement",
    status: "active",
    date: new Date().toISOString(),
    kind: "instance",
    instantiates: [`${BULK_DATA}/CapabilityStatement/bulk-data`],
    software,
    implementation: { description: "Clinical Data Integration Service FHIR R4 store", url: baseUrl },
    fhirVersion: "4.0.1",
    format: ["application/fhir+json", "json"],
    patchFormat: ["application/json-patch+json", "application/fhir+json"],
    rest: [
      {
        mode: "server",
        security: { description: "Authorization: Bearer <API key> and X-Organization-ID on every request" },
        resource,
        interaction: SYSTEM_INTERACTIONS.map((code) => ({ code })),
        searchParam: RESULT_PARAMS.map((name) => ({ name, type: name === "_count" ? "number" : "string" })),
        operation: OPERATIONS.filter((o) => o.system).map((o) => ({ name: o.name, definition: o.definition })),
      },
    ],
  };
}
