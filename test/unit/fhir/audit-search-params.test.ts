// AuditEvent serves the search parameters its readers use, and only those are indexed: every
// interaction writes an AuditEvent, so each parameter costs D1 rows on every request
// (docs/fhir-store.md, "Audit").
import { describe, expect, it } from "vitest";
import { auditEvent } from "../../../src/features/fhir/audit";
import { R4_DEFINITIONS } from "../../../src/features/fhir/definitions";
import { extractIndex } from "../../../src/features/fhir/index-extract";
import { managementAuditEvent } from "../../../src/features/audit/event";
import { parseSearch } from "../../../src/features/fhir/search/parse";
import { ApiError } from "../../../src/platform/errors";

const SERVED = ["_id", "_lastUpdated", "_profile", "_security", "_source", "_tag", "action", "agent", "altid", "date", "entity", "entity-type", "outcome", "patient", "subtype"];
const principal = { orgId: "org-a", keyId: "key-1", keyName: "reader", role: "admin" as const, scopes: [] };
const now = "2026-01-02T03:04:05.000Z";

/** Index rows per table for an event, as [table, code] pairs. */
function rowsOf(event: Parameters<typeof extractIndex>[0]): [string, string][] {
  const rows = extractIndex({ ...event, id: "e1", meta: { versionId: "1", lastUpdated: now } }, R4_DEFINITIONS);
  return [
    ...rows.string.map((r) => ["string", r.code] as [string, string]),
    ...rows.token.map((r) => ["token", r.code] as [string, string]),
    ...rows.reference.map((r) => ["reference", r.code] as [string, string]),
    ...rows.date.map((r) => ["date", r.code] as [string, string]),
    ...rows.patients.map(() => ["compartment", "patient"] as [string, string]),
  ];
}

describe("AuditEvent search parameters", () => {
  it("are the ones its readers filter by, also for the CapabilityStatement (which lists searchParamsOf)", () => {
    expect(R4_DEFINITIONS.searchParamsOf("AuditEvent").map((p) => p.code).sort()).toEqual([...SERVED].sort());
    for (const code of ["site", "source", "type", "agent-name", "agent-role", "entity-name", "entity-role", "address", "policy"]) expect(R4_DEFINITIONS.searchParam("AuditEvent", code)).toBeUndefined();
    // Other types keep every R4 parameter.
    expect(R4_DEFINITIONS.searchParam("Observation", "code")).toBeDefined();
    expect(R4_DEFINITIONS.searchParam("Patient", "address")).toBeDefined();
  });

  it("a read's AuditEvent is indexed on what its readers search: who, what, the interaction, the outcome, the time", () => {
    const rows = rowsOf(auditEvent(principal, { interaction: "read", what: "Patient/p1", outcome: "0" }, now));
    expect(rows.map(([t, c]) => `${t}:${c}`).sort()).toEqual(
      ["compartment:patient", "date:date", "reference:entity", "reference:patient", "token:action", "token:agent:identifier", "token:entity-type", "token:outcome", "token:subtype"].sort(),
    );
  });

  it("a management action's AuditEvent keeps its actor (altid), entity type and action code searchable", () => {
    const event = managementAuditEvent(principal, { action: "pipeline.create", entityId: "pl-1", outcome: "0" }, now);
    const codes = new Set(rowsOf(event).map(([, c]) => c));
    for (const code of ["altid", "entity-type", "subtype", "outcome", "date", "agent:identifier"]) expect(codes.has(code), code).toBe(true);
  });

  it("a search by a parameter it does not serve is unknown: a warning, or 400 under strict handling", () => {
    expect(parseSearch(R4_DEFINITIONS, "AuditEvent", "site=org-a").filters).toEqual([]);
    expect(() => parseSearch(R4_DEFINITIONS, "AuditEvent", "site=org-a", true)).toThrow(ApiError);
    expect(parseSearch(R4_DEFINITIONS, "AuditEvent", "subtype=read&entity=Patient/p1&date=ge2026").filters).toHaveLength(3);
  });
});
