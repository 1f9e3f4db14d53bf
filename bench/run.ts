// `npm run bench [-- name ... [--option value ...]]`: runs the named benchmarks (all by
// default), one after another. Each prints its figures beside a baseline measured in the
// same run; one that measured nothing exits non-zero, and so does this.
import { spawnSync } from "node:child_process";
import path from "node:path";

const BENCHMARKS: Record<string, { file: string; what: string }> = {
  auth: { file: "auth.ts", what: "FHIR read by id with a SMART access token (Backend Services) vs with an API key, alternating rounds on npm start's runtime (target >= 0.95x)" },
  "http-auth": { file: "http-auth.ts", what: "authenticated requests vs /health through wrangler dev" },
  "local-runtime": { file: "local-runtime.ts", what: "/health req/s under npm start (Miniflare directly) vs npm run dev (wrangler dev)" },
  fhir: { file: "fhir/run.ts", what: "FHIR store in-process: creates, reads, searches at ~100k resources, EXPLAIN QUERY PLAN" },
  "fhir-http": { file: "fhir-http.ts", what: "FHIR read, search kinds, create, update at 16 connections on ~15k resources (npm start's runtime): req/s, p50/p99, CPU, D1 rows, OrgGate calls vs a 1-D1-read floor; --medplum adds Medplum's router" },
  "pipeline-engine": { file: "pipeline-engine.ts", what: "engine overhead per node and executions/s, in-process" },
  "code-node": { file: "code-node.ts", what: "executions/s of a pipeline with a trivial code.javascript node vs the same with a data.transform node (target >= 0.5x warm), the code node's per-run overhead, a new code version's cold start (npm start's runtime)" },
  "hl7-convert": { file: "hl7-convert.ts", what: "HL7 v2 parse and HL7-to-FHIR conversion throughput" },
  x12: { file: "x12.ts", what: "X12 segments read/s and 837P claims mapped to FHIR/s vs JSON.parse of the same bytes" },
  mllp: { file: "mllp.ts", what: "bridge durable ACKs/s and ACK latency vs a bare MLLP listener" },
  outbound: { file: "outbound.ts", what: "destination queue messages/s from enqueue to a loopback MLLP receiver's ACK, through the Worker and through the bridge, vs the inbound MLLP path; subscription rest-hook notification p50/p99; workerd RSS over a paused backlog and its drain rate (npm start's runtime)" },
  "hl7-e2e": { file: "hl7-e2e.ts", what: "inbound HL7 converted and stored, messages/s, vs the same Bundles as direct transactions" },
  shards: { file: "shards.ts", what: "two organizations loaded at once on two data shards vs on one, resources/s and ratio" },
  dicomweb: { file: "dicomweb.ts", what: "QIDO-RS + ImagingStudy mapping/s against Orthanc vs its GET /system" },
  copilot: { file: "copilot.ts", what: "copilot deterministic endpoints p50 on a 50-node pipeline vs the raw definition validator, in-process" },
  devices: { file: "devices.ts", what: "device readings → Observations/s vs plain FHIR transactions; vitals p50/p99 on a year of 1-minute heart rate" },
  "devices-http": { file: "devices-http.ts", what: "device readings → Observations/s through wrangler dev vs plain FHIR transactions; MQTT → bridge → Worker readings/s" },
  consent: { file: "consent.ts", what: "consent decision p50 over 20 Consents per patient, in-process and through the store, vs no-consent and one read" },
  audit: { file: "audit.ts", what: "management request latency with the audit trail on vs off, in the same workerd" },
  "pdqm-match": { file: "pdqm-match.ts", what: "PDQm $match precision/recall on the known set, $match/s at 100k patients vs identifier searches" },
  "ips-summary": { file: "ips-summary.ts", what: "IPS $summary latency for a patient with 5,000 resources vs $everything and a compartment search, in-process" },
  wearables: { file: "wearables.ts", what: "signed wearable webhook acknowledgement p50/p99 through wrangler dev vs a bare authenticated endpoint; readings/s from signed webhook to stored Observation (loopback Oura mock) vs the same readings POSTed directly" },
  console: { file: "console.ts", what: "web console first load (gzip bytes, time to interactive) vs a blank page; 200-node editor render vs 2-node, in Chromium" },
  "fhir-xml": { file: "fhir-xml.ts", what: "FHIR XML read and write MB/s on the R4 example instances and an ITI-65 Bundle with a 1 MB document vs JSON.parse/JSON.stringify of the same content, in-process" },
  "bulk-export": { file: "bulk-export.ts", what: "Bulk Data $export resources/s and workerd peak RSS at ~100k resources vs search paging" },
};

// Names first, then options passed to each benchmark: npm run bench -- fhir-http --seconds 2
const args = process.argv.slice(2);
const firstOption = args.findIndex((a) => a.startsWith("-"));
const names = firstOption < 0 ? args : args.slice(0, firstOption);
const options = firstOption < 0 ? [] : args.slice(firstOption);
const chosen = names.length ? names : Object.keys(BENCHMARKS);
const unknown = chosen.filter((c) => !(c in BENCHMARKS));
if (unknown.length) {
  console.error(`Unknown benchmark(s): ${unknown.join(", ")}.`);
  for (const [name, b] of Object.entries(BENCHMARKS)) console.error(`  ${name.padEnd(16)} ${b.what}`);
  process.exit(2);
}
for (const name of chosen) {
  const b = BENCHMARKS[name]!;
  console.log(`\n=== ${name}: ${b.what} ===`);
  const r = spawnSync("tsx", [path.join(import.meta.dirname, b.file), ...options], { stdio: "inherit" });
  if (r.status !== 0) {
    console.error(`\n${name} FAILED (${r.signal ?? `exit ${r.status}`}): its figures above are not results.`);
    process.exit(r.status || 1);
  }
}
