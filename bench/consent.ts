// `npm run bench -- consent`: consent decision latency, in-process. A patient with 20 Consents
// (each a permit with two nested provisions, one with its own nested deny) is decided by the pure
// engine (target p50 ≤ 1 ms), and end to end through the real FHIR store on SQLite (Consent search
// plus decision). Baselines in the same run: the same decision with no Consent (the org default),
// and a bare FHIR read of one resource from the same store. Search mode: a search returning
// SEARCH_RESULTS Observations of SEARCH_PATIENTS patients (each with 2 Consents, half denying)
// through the consent read policy (consent/read-policy.ts, enforce_reads on) vs the same search
// with the policy off, in the same run; the Consent searches per search are counted (one per
// CONSENT_SEARCH_PATIENTS patients, never one per result).
import path from "node:path";
import { type ConsentRequest, decide } from "../src/features/consent/decide";
import { activeConsents, activeConsentsOf, CONSENT_SEARCH_PATIENTS } from "../src/features/consent/service";
import { DEFAULT_CONSENT_POLICY } from "../src/features/consent/policy-store";
import { consentReadPolicy } from "../src/features/consent/read-policy";
import { NO_FHIR_EXTENSIONS, fhirStoreFor } from "../src/features/fhir/index";
import type { Resource } from "../src/features/fhir/port";
import { SqliteD1, sqliteOrgData } from "./fhir/d1-sqlite";
import { allMeasured, sampled } from "./lib/measured";
import { numberOption } from "./lib/options";

const ITERATIONS = numberOption("iterations", 2000, { integer: true });
const CONSENTS = numberOption("consents", 20, { integer: true });
const SEARCH_RESULTS = numberOption("search-results", 1000, { integer: true });
const SEARCH_PATIENTS = numberOption("search-patients", 50, { integer: true });
const SEARCH_RUNS = numberOption("search-runs", 20, { integer: true });
const ACT = "http://terminology.hl7.org/CodeSystem/v3-ActReason";

function consent(i: number): Resource {
  return {
    resourceType: "Consent",
    id: `c${i}`,
    status: "active",
    scope: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/consentscope", code: "patient-privacy" }] },
    category: [{ coding: [{ system: "http://loinc.org", code: "59284-0" }] }],
    patient: { reference: "Patient/p1" },
    dateTime: "2024-01-01",
    policyRule: { coding: [{ system: "http://terminology.hl7.org/CodeSystem/v3-ActCode", code: "OPTIN" }] },
    provision: {
      type: "permit",
      period: { start: "2024-01-01", end: "2030-12-31" },
      provision: [
        { type: "deny", purpose: [{ system: ACT, code: `RES${i}` }], provision: [{ type: "permit", actor: [{ role: { coding: [{ code: "IRCP" }] }, reference: { reference: `Organization/o${i}` } }] }] },
        { type: "deny", securityLabel: [{ system: "http://terminology.hl7.org/CodeSystem/v3-Confidentiality", code: "R" }], class: [{ system: "http://hl7.org/fhir/resource-types", code: "Observation" }] },
      ],
    },
  };
}

const request: ConsentRequest = { patient: "Patient/p1", actors: ["Organization/hie"], action: "disclose", purposes: [{ system: ACT, code: "TREAT" }], data: { resourceTypes: ["Observation"] }, time: "2025-06-01T00:00:00Z" };

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function timeEach(label: string, n: number, fn: () => unknown): Promise<{ p50: number; p99: number }> {
  const samples: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  const sorted = [...sampled(label, samples)].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

const consents = Array.from({ length: CONSENTS }, (_, i) => consent(i));
// Warm up the JIT before measuring.
for (let i = 0; i < 500; i++) decide(request, consents, "opt-in");
const engine = await timeEach("engine", ITERATIONS, () => decide(request, consents, "opt-in"));
const engineBase = await timeEach("engine baseline", ITERATIONS, () => decide(request, [], "opt-in"));

const d1 = new SqliteD1(":memory:");
d1.applyMigrations(path.join(import.meta.dirname, "../migrations/data"));
const data = sqliteOrgData(d1, "bench-org");
const store = fhirStoreFor(data, { orgId: "bench-org", keyId: "bench", keyName: "bench", role: "admin", scopes: [] }, { extensions: NO_FHIR_EXTENSIONS });
for (const c of consents) await store.update(c as Resource & { id: string });
await store.update({ resourceType: "Patient", id: "p1" });
// What consentDecider does per decision, less the policy row (read once per execution; the SQLite shim has no drizzle raw()).
const viaStoreDecide = async () => decide(request, await activeConsents(store, request.patient), "opt-in");
const decision = await viaStoreDecide();
if (decision.applied.length !== CONSENTS) throw new Error(`expected ${CONSENTS} applied consents, got ${decision.applied.length}`);
const storeRuns = Math.max(50, Math.floor(ITERATIONS / 10));
const viaStore = await timeEach("store", storeRuns, viaStoreDecide);
const readBase = await timeEach("read baseline", storeRuns, () => store.read("Patient", "p1"));

// Search mode: SEARCH_RESULTS Observations of SEARCH_PATIENTS patients, consent enforced vs off.
const principal = { orgId: "bench-org", keyId: "bench", keyName: "bench", role: "admin" as const, scopes: [] };
const patientIds = Array.from({ length: SEARCH_PATIENTS }, (_, i) => `sp${i}`);
for (const [i, id] of patientIds.entries()) {
  await store.update({ resourceType: "Patient", id });
  const permit = { ...consent(1000 + i), id: `sc${i}a`, patient: { reference: `Patient/${id}` } };
  const deny = { ...consent(2000 + i), id: `sc${i}b`, patient: { reference: `Patient/${id}` }, provision: { type: i % 2 ? "deny" : "permit" } };
  await store.update(permit as Resource & { id: string });
  await store.update(deny as Resource & { id: string });
}
for (let i = 0; i < SEARCH_RESULTS; i++) {
  await store.update({ resourceType: "Observation", id: `so${i}`, status: "final", code: { text: "hr" }, subject: { reference: `Patient/${patientIds[i % SEARCH_PATIENTS]}` }, valueQuantity: { value: i } });
}
let consentSearches = 0;
const counting = {
  ...store,
  search: (type: string | undefined, q: string) => {
    if (type === "Consent") consentSearches++;
    return store.search(type, q);
  },
} as typeof store;
const enforced = () =>
  fhirStoreFor(data, principal, {
    extensions: NO_FHIR_EXTENSIONS,
    policy: consentReadPolicy(principal, [], {
      policy: async () => ({ ...DEFAULT_CONSENT_POLICY, enforceReads: true }),
      consentsOf: (patients) => activeConsentsOf(counting, patients),
    }),
  });
const query = `_count=${Math.min(SEARCH_RESULTS, 1000)}`;
const shownOn = (await enforced().search("Observation", query)).entry?.length ?? 0;
const shownOff = (await store.search("Observation", query)).entry?.length ?? 0;
if (shownOff !== Math.min(SEARCH_RESULTS, 1000) || shownOn !== Math.ceil(shownOff / 2)) throw new Error(`search showed ${shownOn} with consent, ${shownOff} without: the bench's data is not what it says`);
consentSearches = 0;
const searchOn = await timeEach("search consent on", SEARCH_RUNS, () => enforced().search("Observation", query));
const perSearch = consentSearches / SEARCH_RUNS;
if (perSearch !== Math.ceil(SEARCH_PATIENTS / CONSENT_SEARCH_PATIENTS)) throw new Error(`${perSearch} Consent searches per search: decisions are not cached per request`);
const searchOff = await timeEach("search consent off", SEARCH_RUNS, () => store.search("Observation", query));

const [e50, b50, s50, r50] = allMeasured([
  { label: "engine p50", value: engine.p50 },
  { label: "engine baseline p50", value: engineBase.p50 },
  { label: "store decision p50", value: viaStore.p50 },
  { label: "store read p50", value: readBase.p50 },
] as const);
console.log(`decision over ${CONSENTS} consents, pure engine: p50 ${e50.toFixed(4)} ms, p99 ${engine.p99.toFixed(4)} ms (target p50 ≤ 1 ms) — ${(e50 / b50).toFixed(1)}× the no-consent baseline (p50 ${b50.toFixed(4)} ms)`);
console.log(`decision through the FHIR store on SQLite (search + decide): p50 ${s50.toFixed(3)} ms, p99 ${viaStore.p99.toFixed(3)} ms — ${(s50 / r50).toFixed(1)}× one FHIR read (p50 ${r50.toFixed(3)} ms)`);
const [on50, off50] = allMeasured([
  { label: "search consent on p50", value: searchOn.p50 },
  { label: "search consent off p50", value: searchOff.p50 },
] as const);
console.log(
  `search of ${shownOff} Observations of ${SEARCH_PATIENTS} patients (${shownOn} shown) with consent enforced: p50 ${on50.toFixed(2)} ms vs ${off50.toFixed(2)} ms with the policy off — ${(on50 / off50).toFixed(2)}×; ${perSearch} Consent search per search`,
);
if (e50 > 1) {
  console.error("engine p50 over the 1 ms target");
  process.exit(1);
}
