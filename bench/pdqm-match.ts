// PDQm $match: precision and recall of `certain`, `probable` and probable-or-better on the
// synthetic set with known matches (test/fixtures/pdqm/population.ts), then $match/s over a large
// population (default 100,000 patients) against plain identifier searches/s in the same run, with
// the query plans of the blocking searches (each must use an index: no scan of every patient).
// Exits non-zero when a quality target is missed (precision of certain 1.0, recall of
// probable-or-better >= 0.9), as bench/consent.ts does for its latency target.
// Usage: npm run bench -- pdqm-match [--patients 100000 --queries 300]
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { flushAuditLog } from "../src/features/fhir/audit-log";
import { NO_FHIR_EXTENSIONS, fhirStoreFor } from "../src/features/fhir/index";
import { AuditRows } from "../src/features/fhir/storage/audit-rows";
import type { Bundle, Resource } from "../src/features/fhir/port";
import { matchOperation } from "../src/standards/ihe/pdqm/operations";
import { type BandQuality, MATCH_TARGETS, MRN, cases, population, precisionRecall } from "../test/fixtures/pdqm/population";
import { allMeasured } from "./lib/measured";
import { numberOption } from "./lib/options";
import { SqliteD1, sqliteOrgData } from "./fhir/d1-sqlite";

const total = numberOption("patients", 100_000, { integer: true });
const queries = numberOption("queries", 300, { integer: true });
const dir = mkdtempSync(path.join(os.tmpdir(), "pdqm-bench-"));
const d1 = new SqliteD1(path.join(dir, "bench.sqlite"));
d1.applyMigrations(path.join(import.meta.dirname, "../migrations/data"));

const storeFor = (orgId: string) => fhirStoreFor(sqliteOrgData(d1, orgId), { orgId, keyId: "k", keyName: "bench", role: "service" as const, scopes: [] }, { extensions: NO_FHIR_EXTENSIONS });
const GRADE = "http://hl7.org/fhir/StructureDefinition/match-grade";

async function load(store: ReturnType<typeof storeFor>, patients: Resource[]) {
  for (let i = 0; i < patients.length; i += 500) {
    const entry = patients.slice(i, i + 500).map((resource) => ({ resource, request: { method: "POST", url: "Patient" } }));
    await store.batch({ resourceType: "Bundle", type: "transaction", entry } as Bundle);
  }
  await flushAuditLog(new AuditRows(store.data.d1, store.principal.orgId));
}

const call = (store: ReturnType<typeof storeFor>, body: unknown) =>
  matchOperation.handler({ store, env: {} as never, principal: store.principal, limits: {} as never, level: "type", type: "Patient", params: {}, body, request: { method: "POST", url: "", path: "", headers: new Headers() } });

type Entry = { resource: Resource & { identifier?: { system: string; value: string }[] }; search: { extension: { url: string; valueCode: string }[] } };

/** Large-population people: deterministic names from syllables, dates and phones spread out. */
function bulkPatient(i: number): Resource {
  const syl = ["ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "da", "pe", "zu", "ho", "an", "el", "or"];
  const word = (n: number, len: number) => Array.from({ length: len }, (_, k) => syl[Math.floor(n / 15 ** k) % 15]).join("");
  const cap = (s: string) => s[0]!.toUpperCase() + s.slice(1);
  return {
    resourceType: "Patient",
    identifier: [{ system: "urn:oid:9.9.9", value: `B${i}` }],
    name: [{ family: cap(word(i * 7919, 3)), given: [cap(word(i * 104729, 2))] }],
    gender: i % 2 ? "male" : "female",
    birthDate: `${1930 + (i % 90)}-${String(1 + (i % 12)).padStart(2, "0")}-${String(1 + ((i * 13) % 28)).padStart(2, "0")}`,
    telecom: [{ system: "phone", value: `+1 4${String(i).padStart(9, "0")}` }],
    address: [{ line: [`${i % 999} Road ${i % 300}`], city: "Bulk", postalCode: String(10000 + (i % 80000)) }],
  };
}

async function main() {
  // 1. Quality on the known set.
  const small = storeFor("org-set");
  await load(small, population().map((p) => p.patient));
  const results = [];
  for (const c of cases()) {
    const b = (await call(small, { resourceType: "Parameters", parameter: [{ name: "resource", resource: c.query }, { name: "count", valueInteger: 5 }] })).body as Bundle;
    const matches = ((b.entry ?? []) as unknown as Entry[]).map((e) => {
      const mrn = e.resource.identifier?.find((x) => x.system === MRN)?.value;
      return { key: mrn ? `P${Number(mrn.slice(3))}` : null, grade: e.search.extension.find((x) => x.url === GRADE)!.valueCode };
    });
    results.push({ truth: c.truth, matches });
  }
  const pr = precisionRecall(results);

  // 2. Throughput over the large population.
  const big = storeFor("org-big");
  const t0 = performance.now();
  const people = Array.from({ length: total }, (_, i) => bulkPatient(i));
  await load(big, people);
  const loadSeconds = (performance.now() - t0) / 1000;
  const picks = Array.from({ length: queries }, (_, k) => people[(k * 7_919) % total]!);
  const variant = (p: Resource, k: number) => {
    const q = structuredClone(p) as Resource & { identifier?: unknown };
    if (k % 2) delete q.identifier; // half by demographics alone
    return q;
  };
  let certain = 0;
  const s1 = performance.now();
  for (let k = 0; k < queries; k++) {
    const b = (await call(big, variant(picks[k]!, k))).body as Bundle;
    if ((b.entry?.[0] as unknown as Entry | undefined)?.search.extension[0]?.valueCode === "certain") certain++;
  }
  const matchPerSecond = queries / ((performance.now() - s1) / 1000);
  const s2 = performance.now();
  for (let k = 0; k < queries; k++) await big.search("Patient", `identifier=urn:oid:9.9.9|B${(k * 7_919) % total}`);
  const searchPerSecond = queries / ((performance.now() - s2) / 1000);
  const plans: { q: string; plan: string[] }[] = [];
  for (const q of ["identifier=urn:oid:9.9.9|B1", "birthdate=1950-01-01", "family:exact=Kaloma", "telecom=%2B1%20400000001"]) {
    d1.log.length = 0;
    await big.search("Patient", `${q}&_count=50`);
    const page = [...d1.log].reverse().find((x) => /^SELECT r\.resource_type, r\.id, [rc]\.content/.test(x.sql));
    plans.push({ q, plan: page ? d1.explain(page.sql, page.args) : [] });
  }
  const [mps, sps] = allMeasured([
    { label: "$match/s", value: matchPerSecond },
    { label: "identifier search/s", value: searchPerSecond },
    { label: "certain results", value: pr.certain.count },
  ]);
  console.log(`\nPDQm $match (in-process, node:sqlite)`);
  console.log(`known set: ${pr.withTruth} queries with a true match + ${results.length - pr.withTruth} with none`);
  const row = (name: string, q: BandQuality, targets: string) =>
    console.log(`  ${name.padEnd(20)} ${String(q.count).padStart(7)} ${q.precision.toFixed(3).padStart(9)} ${q.recall.toFixed(3).padStart(6)}   ${targets}`.trimEnd());
  console.log(`  ${"grade".padEnd(20)} ${"results".padStart(7)} ${"precision".padStart(9)} ${"recall".padStart(6)}`);
  row("certain", pr.certain, `target precision ${MATCH_TARGETS.certainPrecision.toFixed(1)}: ${pr.certain.precision >= MATCH_TARGETS.certainPrecision ? "met" : "MISSED"}`);
  row("probable", pr.probable, "");
  row("probable-or-better", pr.probableOrBetter, `target recall >= ${MATCH_TARGETS.probableOrBetterRecall}: ${pr.probableOrBetter.recall >= MATCH_TARGETS.probableOrBetterRecall ? "met" : "MISSED"}`);
  console.log(`population: ${total} patients loaded in ${loadSeconds.toFixed(1)} s`);
  console.log(`  $match/s: ${mps.toFixed(1)} (${certain}/${queries} top results certain; half the queries without identifier)`);
  console.log(`  Patient?identifier search/s (baseline): ${sps.toFixed(1)}   ratio $match/search ${(mps / sps).toFixed(2)}`);
  console.log("EXPLAIN QUERY PLAN of the blocking searches:");
  for (const { q, plan } of plans) {
    console.log(`- ${q}`);
    for (const line of plan) console.log(`    ${line}`);
  }
  rmSync(dir, { recursive: true, force: true });
  if (!pr.met) {
    console.error("match quality target missed");
    process.exitCode = 1;
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
