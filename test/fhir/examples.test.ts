/// <reference types="vite/client" />
// Round-trips the official R4 examples (hl7.fhir.r4.examples) of the types the spec names:
// each stores, reads back equal but for meta, and is found by its own search parameter values;
// the example transaction and batch Bundles execute.
import { beforeAll, describe, expect, it } from "vitest";
import { fhirStoreFor } from "../../src/features/fhir/index";
import { definitionsOf } from "../../src/features/fhir/extensions";
import { extractIndex } from "../../src/features/fhir/index-extract";
import { FHIR_EXTENSIONS } from "../../src/main/catalogs";
import type { Bundle, Resource } from "../../src/features/fhir/port";
import type { FhirService } from "../../src/features/fhir/service";
import { type Tenant, createTenant } from "../support/tenants";

const examples = import.meta.glob<Resource>(
  "/node_modules/hl7.fhir.r4.examples/{Patient,Practitioner,Organization,Condition,Observation,MedicationRequest,AllergyIntolerance,Procedure,Encounter,DiagnosticReport,DocumentReference,MedicationAdministration,ServiceRequest,CarePlan,ImagingStudy,Consent,Binary,Appointment,Coverage,Claim,ExplanationOfBenefit,Device,Flag,Composition,List,Provenance,Location}-*.json",
  { eager: true, import: "default" },
);
const bundles = import.meta.glob<Bundle>(
  "/node_modules/hl7.fhir.r4.examples/Bundle-{bundle-transaction,hla-1,xds,ussg-fht,bundle-request-medsallergies,bundle-request-simplesummary}.json",
  { eager: true, import: "default" },
);

/** FHIR escaping of a search value: "," separates alternatives unless escaped. */
const esc = (v: string) => encodeURIComponent(v.replace(/\\/g, "\\\\").replace(/,/g, "\\,"));
const withoutMeta = ({ meta: _m, ...rest }: Resource) => rest;

let t: Tenant;
let store: FhirService;
const stored: Resource[] = [];
const rejected: { file: string; status: number; message: string }[] = [];

beforeAll(async () => {
  t = await createTenant();
  store = fhirStoreFor(t.ctx, { orgId: t.orgId, keyId: t.keyId, keyName: "examples", role: "admin", scopes: [] }, { extensions: FHIR_EXTENSIONS });
  for (const [file, resource] of Object.entries(examples)) {
    const r = structuredClone(resource) as Resource & { id: string };
    try {
      await store.update(r);
      stored.push(r);
    } catch (e) {
      rejected.push({ file, status: (e as { status: number }).status, message: (e as Error).message });
    }
  }
}, 120_000);

describe("official R4 examples", () => {
  it("stores every example of the spec's types (the few the base definitions reject are genuine example errors)", () => {
    expect(Object.keys(examples).length).toBeGreaterThan(300);
    // Known-invalid official examples: ids longer than 64 characters or codes outside required value sets.
    for (const r of rejected) expect(r.status, `${r.file}: ${r.message}`).toBe(422);
    expect(rejected.length).toBeLessThan(5);
  });

  it("reads each back equal but for meta", async () => {
    for (const r of stored) {
      const back = await store.read(r.resourceType, r.id!);
      expect(withoutMeta(back), `${r.resourceType}/${r.id}`).toEqual(withoutMeta(r));
    }
  }, 120_000);

  it("finds each by its own search parameter values", async () => {
    let checked = 0;
    for (const r of stored) {
      const rows = extractIndex(r, definitionsOf(FHIR_EXTENSIONS));
      const queries = [
        ...rows.token.filter((x) => !x.code.includes(":")).slice(0, 3).map((x) => `${x.code}=${esc(x.system ? `${x.system}|${x.value}` : x.value)}`),
        ...rows.string.filter((x) => !x.code.includes(":")).slice(0, 3).map((x) => `${x.code}:exact=${esc(x.value)}`),
        ...rows.reference.filter((x) => x.targetType && x.targetId).slice(0, 3).map((x) => `${x.code}=${encodeURIComponent(`${x.targetType}/${x.targetId}`)}`),
        ...rows.date.slice(0, 3).map((x) => `${x.code}=ge${encodeURIComponent(x.low)}`),
        ...rows.number.slice(0, 2).map((x) => `${x.code}=${x.value}`),
        ...rows.uri.slice(0, 2).map((x) => `${x.code}=${esc(x.value)}`),
      ];
      for (const q of queries) {
        const b = await store.search(r.resourceType, `_id=${encodeURIComponent(r.id!)}&${q}`);
        expect(b.entry?.map((e) => e.resource?.id), `${r.resourceType}?${q}`).toContain(r.id);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(1000);
  }, 300_000);

  it("executes the example transaction and batch Bundles", async () => {
    const u = await createTenant();
    const s = fhirStoreFor(u.ctx, { orgId: u.orgId, keyId: u.keyId, keyName: "examples", role: "admin", scopes: [] }, { extensions: FHIR_EXTENSIONS });
    // Entries of the example transaction act on resources that must exist first.
    await s.update({ resourceType: "Patient", id: "123", name: [{ family: "Existing" }] });
    await s.update({ resourceType: "Patient", id: "123a", name: [{ family: "Existing" }] });
    await s.update({ resourceType: "Patient", id: "123a", name: [{ family: "Existing v2" }] });
    await s.update({ resourceType: "Patient", id: "example", name: [{ family: "Existing" }] });
    await s.update({ resourceType: "Patient", id: "pat1", name: [{ family: "Existing" }] });
    await s.update({ resourceType: "Patient", id: "pat2", name: [{ family: "Existing" }] });
    await s.update({ resourceType: "Patient", id: "234", name: [{ family: "Existing" }] });
    const outcomes: Record<string, string[]> = {};
    for (const [file, bundle] of Object.entries(bundles)) {
      const name = file.split("/").pop()!;
      const input: Bundle = structuredClone(bundle);
      // This server has no terminology service: the ValueSet/$lookup entry is left out.
      input.entry = input.entry!.filter((e) => !e.request?.url.includes("$lookup"));
      try {
        const res = await s.batch(input);
        outcomes[name] = res.entry!.map((e) => e.response!.status);
        expect(res.type).toBe(`${bundle.type}-response`);
        expect(res.entry).toHaveLength(input.entry.length);
      } catch (e) {
        outcomes[name] = [`failed: ${(e as Error).message}`];
      }
    }
    expect(outcomes).toMatchSnapshot();
  }, 60_000);
});
