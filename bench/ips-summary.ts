// IPS $summary latency (in-process, on the same SQLite engine as D1) for one patient with
// ~5,000 resources, against the compartment read it is built on (Patient/$everything) and a
// plain one-page search of the patient's Observations, measured in the same run. Prints the
// $summary p50 against the target (100 ms, in-process); exits non-zero when it measured
// nothing or the document left part of the record out (its narrative names a shortfall).
// Usage: npm run bench -- ips-summary [--resources 5000 --runs 20]
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { flushAuditLog } from "../src/features/fhir/audit-log";
import { NO_FHIR_EXTENSIONS, fhirStoreFor } from "../src/features/fhir/index";
import { AuditRows } from "../src/features/fhir/storage/audit-rows";
import type { Bundle, Resource } from "../src/features/fhir/port";
import { buildSummary } from "../src/standards/ips/document";
import { summaryOperation } from "../src/standards/ips/operation";
import { recordFromEverything } from "../src/standards/ips/record";
import { allMeasured, sampled } from "./lib/measured";
import { numberOption } from "./lib/options";
import { SqliteD1, sqliteOrgData } from "./fhir/d1-sqlite";

const total = numberOption("resources", 5000, { integer: true });
const runs = numberOption("runs", 20, { integer: true });
const dir = mkdtempSync(path.join(os.tmpdir(), "ips-bench-"));
const d1 = new SqliteD1(path.join(dir, "bench.sqlite"));
d1.applyMigrations(path.join(import.meta.dirname, "../migrations/data"));
const principal = { orgId: "org-ips", keyId: "key-ips", keyName: "bench", role: "service" as const, scopes: [] };
const store = fhirStoreFor(sqliteOrgData(d1, principal.orgId), principal, { extensions: NO_FHIR_EXTENSIONS, baseUrl: "https://fhir.example.org/fhir/r4/org-ips" });

const coded = (code: string, display: string) => ({ coding: [{ system: "http://loinc.org", code, display }] });
const category = (code: string) => [{ coding: [{ system: "http://terminology.hl7.org/CodeSystem/observation-category", code }] }];

/** The record's mix: mostly results and vitals, as a long-followed patient's is. */
function resourceAt(i: number, subject: { reference: string }): Resource {
  const day = `20${String(10 + (i % 15)).padStart(2, "0")}-0${1 + (i % 9)}-1${i % 10}`;
  switch (i % 10) {
    case 0:
      return { resourceType: "Condition", subject, clinicalStatus: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/condition-clinical", code: i % 20 ? "active" : "resolved" }] }, code: { text: `Condition ${i}` } };
    case 1:
      return { resourceType: "MedicationStatement", subject, status: "active", medicationCodeableConcept: { text: `Drug ${i}` }, effectiveDateTime: day };
    case 2:
      return { resourceType: "Immunization", patient: subject, status: "completed", vaccineCode: { text: `Vaccine ${i}` }, occurrenceDateTime: day };
    case 3:
      return { resourceType: "Procedure", subject, status: "completed", code: { text: `Procedure ${i}` }, performedDateTime: day };
    case 4:
      return { resourceType: "AllergyIntolerance", patient: subject, code: { text: `Allergen ${i}` } };
    case 5:
    case 6:
      return { resourceType: "Observation", subject, status: "final", category: category("vital-signs"), code: coded("8867-4", "Heart rate"), effectiveDateTime: day, valueQuantity: { value: 60 + (i % 40), unit: "/min" } };
    default:
      return { resourceType: "Observation", subject, status: "final", category: category("laboratory"), code: coded("2339-0", "Glucose"), effectiveDateTime: day, valueQuantity: { value: 4 + (i % 5), unit: "mmol/L" } };
  }
}

/** The target for one patient with 5,000 resources, in-process (wall time on a free core). */
const TARGET_MS = 100;

const pct = (xs: readonly number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

/** CPU milliseconds (user + system) of each run, beside wall time: on a shared machine wall time includes waiting for a core. */
const cpuTimes = new Map<string, number[]>();

async function time(label: string, fn: () => Promise<unknown>): Promise<readonly number[]> {
  for (let i = 0; i < 3; i++) await fn(); // warm (JIT, statement cache)
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    const s = performance.now();
    const c = process.cpuUsage();
    await fn();
    const used = process.cpuUsage(c);
    times.push(performance.now() - s);
    cpu.push((used.user + used.system) / 1000);
  }
  cpuTimes.set(label, cpu);
  return sampled(label, times);
}

async function main() {
  const patient = (await store.create({ resourceType: "Patient", name: [{ family: "Bench", given: ["Ips"] }], identifier: [{ system: "urn:bench", value: "1" }] })).resource;
  const subject = { reference: `Patient/${patient.id}` };
  for (let start = 0; start < total - 1; start += 500) {
    const entry = Array.from({ length: Math.min(500, total - 1 - start) }, (_, k) => ({ resource: resourceAt(start + k, subject), request: { method: "POST", url: resourceAt(start + k, subject).resourceType } }));
    await store.batch({ resourceType: "Bundle", type: "transaction", entry } as Bundle);
  }
  await flushAuditLog(new AuditRows(store.data.d1, store.principal.orgId));

  const call = { store, env: {} as never, principal, limits: {} as never, level: "instance" as const, type: "Patient", id: patient.id!, params: {}, body: undefined, request: { method: "GET" as const, url: "", path: "", headers: new Headers() } };
  let entries = 0;
  let incomplete = false;
  const summary = await time("$summary", async () => {
    const bundle = (await summaryOperation.handler(call)).body as Bundle;
    entries = bundle.entry!.length;
    incomplete = JSON.stringify(bundle.entry![0]!.resource).includes("This summary is incomplete");
  });
  const everything = await time("$everything", () => store.everything(patient.id!));
  // Phases of one $summary: the Device search beside the compartment read, and the pure builder on a record in hand.
  const devices = await time("Device search", () => store.search("Device", `patient=${subject.reference}&_count=1000`));
  const { patient: inHand, record } = recordFromEverything(await store.everything(patient.id!), patient.id!);
  const build = await time("buildSummary", async () => buildSummary({ patient: inHand, record }));
  const search = await time("Observation search", () => store.search("Observation", `patient=${subject.reference}&_count=1000`));
  const [p50, base, plain] = allMeasured([
    { label: "$summary p50 ms", value: pct(summary, 50) },
    { label: "$everything p50 ms", value: pct(everything, 50) },
    { label: "search p50 ms", value: pct(search, 50) },
  ]);
  const [deviceP50, buildP50] = allMeasured([
    { label: "Device search p50 ms", value: pct(devices, 50) },
    { label: "buildSummary p50 ms", value: pct(build, 50) },
  ]);
  console.log(`\nIPS $summary, one patient with ${total} resources (${entries} document entries), ${runs} runs each, in-process SQLite`);
  console.log(`$summary                          p50 ${p50.toFixed(1)} ms   p99 ${pct(summary, 99).toFixed(1)} ms   (target p50 <= ${TARGET_MS} ms: ${p50 <= TARGET_MS ? "met" : "missed"})`);
  console.log(`$everything (its compartment read) p50 ${base.toFixed(1)} ms   ratio $summary/$everything ${(p50 / base).toFixed(2)}`);
  console.log(`Observation?patient&_count=1000    p50 ${plain.toFixed(1)} ms   ratio $summary/search ${(p50 / plain).toFixed(2)}`);
  const [cpuSummary, cpuEverything] = allMeasured([
    { label: "$summary CPU p50 ms", value: pct(cpuTimes.get("$summary")!, 50) },
    { label: "$everything CPU p50 ms", value: pct(cpuTimes.get("$everything")!, 50) },
  ]);
  console.log(`CPU time p50: $summary ${cpuSummary.toFixed(1)} ms, $everything ${cpuEverything.toFixed(1)} ms, ratio ${(cpuSummary / cpuEverything).toFixed(2)}`);
  console.log(`phases: Device?patient p50 ${deviceP50.toFixed(1)} ms, buildSummary (record in hand) p50 ${buildP50.toFixed(1)} ms`);
  rmSync(dir, { recursive: true, force: true });
  if (incomplete) throw new Error("the document says part of the record was left out: the summary did not see the whole record");
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
