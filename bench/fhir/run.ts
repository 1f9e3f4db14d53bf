// FHIR store benchmark (in-process, on the same SQLite engine as D1): generates a deterministic
// organization (default 1,000 patients, ~101k resources) through transaction Bundles, then
// prints create/s, read/s, p50/p99 of typical searches and their EXPLAIN QUERY PLAN.
// Usage: npm run bench -- fhir (or: npx tsx bench/fhir/run.ts --patients 1000)
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { flushAuditLog } from "../../src/features/fhir/audit-log";
import { NO_FHIR_EXTENSIONS, fhirStoreFor } from "../../src/features/fhir/index";
import { AuditRows } from "../../src/features/fhir/storage/audit-rows";
import { allMeasured, sampled } from "../lib/measured";
import { numberOption } from "../lib/options";
import { SqliteD1, sqliteOrgData } from "./d1-sqlite";
import { MemoryQueue } from "./memory-queue";
import { seededRandom } from "../../scripts/lib/seeded-random";
import { DEFAULTS, VITALS, patientBundles } from "./generate";

const patients = numberOption("patients", DEFAULTS.patients, { integer: true });
const dir = mkdtempSync(path.join(os.tmpdir(), "fhir-bench-"));
const d1 = new SqliteD1(path.join(dir, "bench.sqlite"));
d1.applyMigrations(path.join(import.meta.dirname, "../../migrations/data"));

const principal = { orgId: "org-bench", keyId: "key-bench", keyName: "bench", role: "service" as const, scopes: [] };
// Reads send their AuditEvents to the audit queue; its consumer stores them after the reads.
const auditQueue = new MemoryQueue();
const store = fhirStoreFor(sqliteOrgData(d1, principal.orgId, { AUDIT_QUEUE: auditQueue }), principal, { extensions: NO_FHIR_EXTENSIONS });
const otherOrg = fhirStoreFor(sqliteOrgData(d1, "org-other"), { ...principal, orgId: "org-other" }, { extensions: NO_FHIR_EXTENSIONS });

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const fmt = (n: number) => n.toFixed(2);

async function main() {
  // 1. Creates, as transaction bundles (one per patient, ~101 resources each).
  let created = 0;
  const t0 = performance.now();
  for (const bundle of patientBundles({ ...DEFAULTS, patients })) {
    const res = await store.batch(bundle);
    created += res.entry!.length;
  }
  // The AuditEvents still in the log are indexed as part of the creates' cost.
  await flushAuditLog(new AuditRows(store.data.d1, store.principal.orgId));
  const createSeconds = (performance.now() - t0) / 1000;
  for (const bundle of patientBundles({ ...DEFAULTS, patients: 20, seed: 7 })) await otherOrg.batch(bundle);
  const resourceRows = (d1.db.prepare("SELECT COUNT(*) AS n FROM fhir_resources").get() as { n: number }).n;

  // 2. Reads by id.
  const r = seededRandom(1);
  const ids = (type: string) => (d1.db.prepare("SELECT id FROM fhir_resources WHERE org_id = ? AND resource_type = ? LIMIT 5000").all(principal.orgId, type) as { id: string }[]).map((x) => x.id);
  const patientIds = ids("Patient");
  const obsIds = ids("Observation");
  const READS = 3000;
  const t1 = performance.now();
  for (let i = 0; i < READS; i++) {
    if (i % 2) await store.read("Patient", patientIds[Math.floor(r() * patientIds.length)]!);
    else await store.read("Observation", obsIds[Math.floor(r() * obsIds.length)]!);
  }
  const readsPerSecond = READS / ((performance.now() - t1) / 1000);
  // The consumer's side: the reads' AuditEvents stored in batches, off the reads' path.
  const queued = auditQueue.held.length;
  const t2 = performance.now();
  const auditBatches = await auditQueue.deliver(() => sqliteOrgData(d1, principal.orgId));
  const auditsPerSecond = queued / ((performance.now() - t2) / 1000);

  // 3. Typical searches.
  const mrn = () => `MRN${String(Math.floor(r() * patients)).padStart(6, "0")}`;
  const pid = () => patientIds[Math.floor(r() * patientIds.length)]!;
  const month = () => `2022-${String(1 + Math.floor(r() * 12)).padStart(2, "0")}`;
  const searches: Record<string, () => string> = {
    "Patient?name (prefix)": () => `name=${["smi", "gar", "jos", "mar", "lee"][Math.floor(r() * 5)]}`,
    "Patient?identifier": () => `identifier=urn:bench:mrn|${mrn()}`,
    // The four (#23): name, subject+code newest first, code+date, encounters with their patient.
    "Patient?name= (family)": () => `name=${["Smith", "García", "Lee", "Martin", "White"][Math.floor(r() * 5)]}`,
    "Observation?code&date=ge": () => `code=http://loinc.org|${VITALS[Math.floor(r() * VITALS.length)]!.code}&date=ge${month()}-01`,
    "Encounter?patient&_include=Encounter:subject": () => `patient=${pid()}&_include=Encounter:subject`,
    "Observation?code+date range&_sort=-date": () => `code=http://loinc.org|${VITALS[Math.floor(r() * VITALS.length)]!.code}&date=ge${month()}-01&date=lt${month()}-15&_sort=-date`,
    "Observation?subject+code+date&_sort=-date": () => `subject=Patient/${pid()}&code=http://loinc.org|8480-6&date=ge2021-01-01&_sort=-date`,
    "Encounter?subject&_include=Encounter:subject": () => `subject=Patient/${pid()}&_include=Encounter:subject`,
    "Patient?_id&_revinclude=Condition:subject": () => `_id=${pid()}&_revinclude=Condition:subject`,
    "Observation?subject:Patient.identifier (chain)": () => `subject:Patient.identifier=urn:bench:mrn|${mrn()}`,
    "Observation?code&_sort=-date (latest first)": () => `code=http://loinc.org|${VITALS[Math.floor(r() * VITALS.length)]!.code}&_sort=-date`,
    // System level (no type): pages through the (org, last_updated) index, every type at once.
    "?_lastUpdated=gt2000-01-01&_count=10 (system)": () => "_lastUpdated=gt2000-01-01&_count=10",
    "?_lastUpdated&_sort=-_lastUpdated (system)": () => "_lastUpdated=gt2000-01-01&_sort=-_lastUpdated&_count=10",
    "Observation?status&_count=10 (walk)": () => "status=final&_count=10",
  };
  const N = 200;
  const results: Record<string, { p50: number; p99: number; avgMatches: number; plan: string[] }> = {};
  for (const [name, query] of Object.entries(searches)) {
    const type = name.split("?")[0] || undefined;
    const times: number[] = [];
    let matches = 0;
    let plan: string[] = [];
    for (let i = 0; i < N; i++) {
      const q = query();
      const s = performance.now();
      const b = await store.search(type, q);
      times.push(performance.now() - s);
      matches += (b.entry ?? []).filter((e) => e.search?.mode === "match").length;
      if (i === 0) {
        const page = [...d1.log].reverse().find((x) => /^SELECT r\.resource_type, r\.id, [rc]\.content/.test(x.sql));
        plan = page ? d1.explain(page.sql, page.args) : [];
      }
    }
    sampled(`${name} latencies`, times);
    results[name] = { p50: pct(times, 50), p99: pct(times, 99), avgMatches: matches / N, plan };
  }

  allMeasured([
    { label: "creates/s", value: created / createSeconds },
    { label: "reads/s", value: readsPerSecond },
    { label: "audits stored/s", value: auditsPerSecond },
  ]);
  console.log(`\nFHIR store benchmark (in-process, node:sqlite ${d1.db.prepare("SELECT sqlite_version() AS v").get()?.v})`);
  console.log(`org: ${patients} patients, ${created} resources created (+ ${resourceRows - created} other rows: AuditEvents, second org)`);
  console.log(`create: ${fmt(created / createSeconds)} resources/s (transactions of ~101 entries, each with its AuditEvent)`);
  console.log(`read:   ${fmt(readsPerSecond)} reads/s (each read's AuditEvent sent to the audit queue, no D1 write)`);
  console.log(`audit consumer: ${queued} AuditEvents stored in ${auditBatches} D1 batches, ${fmt(auditsPerSecond)} AuditEvents/s`);
  console.log("\nsearch                                              p50 ms   p99 ms   matches/page");
  for (const [name, x] of Object.entries(results)) {
    console.log(`${name.padEnd(50)} ${fmt(x.p50).padStart(7)}  ${fmt(x.p99).padStart(7)}   ${fmt(x.avgMatches).padStart(6)}`);
  }
  console.log("\nEXPLAIN QUERY PLAN of each search's page query:");
  for (const [name, x] of Object.entries(results)) {
    console.log(`- ${name}`);
    for (const line of x.plan) console.log(`    ${line}`);
  }
  rmSync(dir, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
