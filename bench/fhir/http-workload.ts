// The fhir-http bench's workload, for any FHIR R4 server: loads the generated organization through
// transaction Bundles and names the operations to measure (read, search kinds, create, update),
// each a request builder picking the next id round-robin so every connection asks something else.
import type { Bundle } from "../../src/features/fhir/port";
import { VITALS } from "./generate";

export type { Bundle };

export interface Operation {
  label: string;
  request: () => Promise<Response>;
  kind: "floor" | "read" | "search" | "create" | "update";
  expectStatus?: number;
  /** A search over the large types (Observation, Encounter, Condition): an index-less store scans them all. */
  largeTypes?: boolean;
}

export interface LoadedOrganization {
  resources: number;
  patients: string[];
  mrns: string[];
}

const idOf = (location: string) => location.replace(/^.*?\b([A-Z][A-Za-z]+)\/([^/]+)(\/_history\/.*)?$/, "$2");

/** Posts each Bundle as a transaction; answers the ids the server gave the patients. */
export async function loadOrganization(base: string, headers: Record<string, string>, bundles: Bundle[]): Promise<LoadedOrganization> {
  const out: LoadedOrganization = { resources: 0, patients: [], mrns: [] };
  for (const bundle of bundles) {
    const res = await fetch(base, { method: "POST", headers: { ...headers, "content-type": "application/fhir+json" }, body: JSON.stringify(bundle) });
    const body = (await res.json()) as Bundle;
    if (res.status !== 200) throw new Error(`loading a transaction answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
    for (const [i, e] of (body.entry ?? []).entries()) {
      const location = e.response?.location ?? "";
      if (!location) throw new Error(`a transaction entry has no location: ${JSON.stringify(e).slice(0, 200)}`);
      out.resources++;
      const sent = bundle.entry![i]!.resource as { resourceType: string; identifier?: { value?: string }[] };
      if (sent.resourceType === "Patient") {
        out.patients.push(idOf(location));
        out.mrns.push(sent.identifier?.[0]?.value ?? "");
      }
    }
  }
  return out;
}

const FAMILIES = ["Smith", "García", "Lee", "Martin", "White", "Moore"];

/** The operations measured, in order. */
export function operationsFor(base: string, headers: Record<string, string>, data: LoadedOrganization): Operation[] {
  let n = 0;
  const next = () => n++;
  const patient = () => data.patients[next() % data.patients.length]!;
  const code = () => VITALS[next() % VITALS.length]!.code;
  const get = (url: () => string) => () => fetch(`${base}/${url()}`, { headers });
  const json = { ...headers, "content-type": "application/fhir+json" };
  const search = (label: string, url: () => string): Operation => ({ label, request: get(url), kind: "search", ...(/^(Observation|Encounter|Condition)\?/.test(label) ? { largeTypes: true } : {}) });
  return [
    { label: "read Patient by id", request: get(() => `Patient/${patient()}`), kind: "read" },
    search("Patient?name=", () => `Patient?name=${FAMILIES[next() % FAMILIES.length]}`),
    search("Observation?subject&code&_sort=-date", () => `Observation?subject=Patient/${patient()}&code=http://loinc.org|${code()}&_sort=-date`),
    search("Observation?code&date=ge", () => `Observation?code=http://loinc.org|${code()}&date=ge2024-0${1 + (next() % 9)}-01`),
    search("Encounter?patient&_include", () => `Encounter?patient=Patient/${patient()}&_include=Encounter:subject`),
    search("Patient?identifier= (token)", () => `Patient?identifier=urn:bench:mrn|${data.mrns[next() % data.mrns.length]}`),
    search("Observation?subject:Patient.identifier (chain)", () => `Observation?subject:Patient.identifier=urn:bench:mrn|${data.mrns[next() % data.mrns.length]}`),
    search("Condition?_count=10&_sort=-_lastUpdated", () => "Condition?_count=10&_sort=-_lastUpdated"),
    {
      label: "create Patient",
      request: () => fetch(`${base}/Patient`, { method: "POST", headers: json, body: JSON.stringify({ resourceType: "Patient", name: [{ family: "Created", given: [`G${next()}`] }] }) }),
      kind: "create",
      expectStatus: 201,
    },
    {
      label: "update Patient",
      request: () => {
        const id = patient();
        return fetch(`${base}/Patient/${id}`, { method: "PUT", headers: json, body: JSON.stringify({ resourceType: "Patient", id, name: [{ family: "Updated", given: [`G${next()}`] }] }) });
      },
      kind: "update",
    },
  ];
}
