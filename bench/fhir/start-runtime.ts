// FHIR over HTTP on `npm start`'s runtime (the bundle on Miniflare directly): read by id, two
// searches and create at 16 connections, beside /health (no D1, no auth) and the management org
// read (auth + rate limit + one control read) in the same run, as ratios to /health. Usage:
// npm run bench -- fhir-start [--seconds 10] [--patients 200]
import { type LoadResult, formatResult, load, throughput } from "../lib/load";
import { allMeasured } from "../lib/measured";
import { numberOption } from "../lib/options";
import { startWorker } from "../lib/worker";

const seconds = numberOption("seconds", 10);
const patients = numberOption("patients", 200, { integer: true });
const concurrency = 16;
const worker = await startWorker({ runtime: "miniflare", logLevel: "none", vars: { LIMIT_API_PER_MINUTE: "100000000", LIMIT_PUBLIC_PER_MINUTE: "100000000" } });
try {
  const base = `${worker.url}/fhir/r4/${worker.orgId}`;
  const json = { ...worker.headers, "content-type": "application/fhir+json" };
  // Each patient with 10 Observations of two codes, loaded as transactions of 10 patients.
  const ids: string[] = [];
  for (let b = 0; b < patients / 10; b++) {
    const entry = Array.from({ length: 10 }, (_, i) => {
      const fullUrl = `urn:uuid:${crypto.randomUUID()}`;
      const obs = Array.from({ length: 10 }, (_, k) => ({
        resource: { resourceType: "Observation", status: "final", code: { coding: [{ system: "http://loinc.org", code: k % 2 ? "8480-6" : "8867-4" }] }, subject: { reference: fullUrl }, effectiveDateTime: `2022-0${1 + (k % 9)}-1${k % 10}` },
        request: { method: "POST", url: "Observation" },
      }));
      return [{ fullUrl, resource: { resourceType: "Patient", name: [{ family: `Bench${b * 10 + i}`, given: ["Ann"] }] }, request: { method: "POST", url: "Patient" } }, ...obs];
    }).flat();
    const res = await fetch(base, { method: "POST", headers: json, body: JSON.stringify({ resourceType: "Bundle", type: "transaction", entry }) });
    const tx = (await res.json()) as { entry: { response: { location: string } }[] };
    if (res.status !== 200) throw new Error(`loading answered ${res.status}: ${JSON.stringify(tx).slice(0, 300)}`);
    for (const e of tx.entry) if (e.response.location.startsWith("Patient/")) ids.push(e.response.location.split("/")[1]!);
  }
  let n = 0;
  const pick = () => ids[n++ % ids.length]!;
  const get = (url: () => string) => () => fetch(url(), { headers: worker.headers });
  const runs: [string, () => Promise<Response>, number?][] = [
    ["GET /health (floor)", get(() => `${worker.url}/health`)],
    ["GET /api/organization", get(() => `${worker.url}/api/organization`)],
    ["FHIR read by id", get(() => `${base}/Patient/${pick()}`)],
    ["Patient?name=", get(() => `${base}/Patient?name=bench${n++ % patients}`)],
    ["Observation?subject&code&_sort=-date", get(() => `${base}/Observation?subject=Patient/${pick()}&code=http://loinc.org|8480-6&_sort=-date`)],
    ["create Patient", () => fetch(`${base}/Patient`, { method: "POST", headers: json, body: JSON.stringify({ resourceType: "Patient", name: [{ family: "New" }] }) }), 201],
  ];
  const results: LoadResult[] = [];
  for (const [label, request, expectStatus] of runs) {
    await load("warm-up", request, { concurrency, seconds: 1, ...(expectStatus ? { expectStatus } : {}) });
    results.push(await load(label, request, { concurrency, seconds, ...(expectStatus ? { expectStatus } : {}) }));
  }
  allMeasured(results.map(throughput));
  console.log(`npm start runtime, ${concurrency} connections, ${seconds} s each, ${ids.length * 11} resources`);
  const floor = results[0]!.rps;
  for (const r of results) console.log(`${formatResult(r)}   ${(r.rps / floor).toFixed(2)}x floor`);
} finally {
  await worker.stop();
}
