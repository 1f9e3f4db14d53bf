// HTTP read benchmark through `wrangler dev --local`: FHIR reads (auth, rate limit, D1 read,
// AuditEvent after the response) against a trivial Worker doing one D1 point read, in the same
// run on the same machine, reported as a ratio. Usage: npm run bench -- fhir-http [--seconds 10]
// (or: npx tsx bench/fhir/http.mjs --seconds 10)
import { spawn, execFileSync } from "node:child_process";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { allMeasured } from "../lib/measured.ts";
import { allDatabaseNames, databases } from "../../scripts/lib/shards.ts";
import { numberOption } from "../lib/options.ts";
import { freePort } from "../lib/worker.ts";

const root = path.join(import.meta.dirname, "../..");
const seconds = numberOption("seconds", 10);
const concurrency = 8;
const persist = mkdtempSync(path.join(os.tmpdir(), "fhir-http-bench-"));
const env = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_HIDE_BANNER: "true", CI: "true" };
const wrangler = path.join(root, "node_modules/.bin/wrangler");
const children = [];

function d1(command, cwd = root) {
  execFileSync(wrangler, ["d1", "execute", "DB", "--local", "--persist-to", persist, "--command", command], { cwd, env, stdio: "pipe" });
}

async function start(cwd, port, extra = []) {
  const child = spawn(wrangler, ["dev", "--local", "--persist-to", persist, "--port", String(port), "--ip", "127.0.0.1", "--show-interactive-dev-session=false", ...extra], { cwd, env, stdio: "pipe" });
  children.push(child);
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  for (let i = 0; i < 120 && child.exitCode === null; i++) {
    try {
      // Bounded: a Worker that failed to build accepts the connection and never answers.
      await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(2000) });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  throw new Error(`wrangler dev did not start on ${port}:\n${log}`);
}

async function load(url, headers) {
  let ok = 0;
  let failed = 0;
  const until = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      for (let i = 0; Date.now() < until; i++) {
        try {
          const res = await fetch(url(w, i), { headers });
          await res.arrayBuffer();
          if (res.ok) ok++;
          else failed++;
        } catch {
          failed++;
        }
      }
    }),
  );
  return { rps: ok / seconds, failed };
}

async function main() {
  // Every database: the control one (organizations, keys) and each data shard.
  for (const db of allDatabaseNames()) execFileSync(wrangler, ["d1", "migrations", "apply", db, "--local", "--persist-to", persist], { cwd: root, env, stdio: "pipe" });
  const orgId = randomUUID();
  const key = `cdis_${randomBytes(32).toString("base64url")}`;
  const hash = createHash("sha256").update(key).digest("hex");
  const now = new Date().toISOString();
  d1(`INSERT INTO organizations (id, name, limits, shard, created_at) VALUES ('${orgId}', 'bench', '{}', '${databases().pooled[0]}', '${now}');
      INSERT INTO api_keys (id, org_id, name, role, scopes, key_hash, key_prefix, created_at) VALUES ('${randomUUID()}', '${orgId}', 'bench', 'service', '[]', '${hash}', '${key.slice(0, 13)}', '${now}')`);
  const [servicePort, trivialPort] = [await freePort(), await freePort()];
  // DEV_MODE: links from the request's origin, as under npm start (no PUBLIC_BASE_URL here).
  await start(root, servicePort, ["--var", "LIMIT_API_PER_MINUTE:100000000", "--var", "DEV_MODE:true"]);
  await start(path.join(import.meta.dirname, "trivial"), trivialPort);
  const headers = { authorization: `Bearer ${key}`, "x-organization-id": orgId };
  const base = `http://127.0.0.1:${servicePort}/fhir/r4/${orgId}`;
  const entries = Array.from({ length: 200 }, (_, i) => ({ resource: { resourceType: "Patient", name: [{ family: `Bench${i}` }] }, request: { method: "POST", url: "Patient" } }));
  const res = await fetch(base, { method: "POST", headers: { ...headers, "content-type": "application/fhir+json" }, body: JSON.stringify({ resourceType: "Bundle", type: "transaction", entry: entries }) });
  const tx = await res.json();
  if (res.status !== 200) throw new Error(`loading the patients answered ${res.status}: ${JSON.stringify(tx).slice(0, 300)}`);
  const ids = tx.entry.map((e) => e.resource.id);
  const fhirUrl = (w, i) => `${base}/Patient/${ids[(w * 31 + i) % ids.length]}`;
  const trivialUrl = () => `http://127.0.0.1:${trivialPort}/?id=${orgId}`;
  await load(fhirUrl, headers); // warm-up
  const rounds = [];
  // The management API's org read (auth + rate limit + one D1 read, no audit) separates the
  // foundation's per-request cost from the FHIR store's.
  const orgUrl = () => `http://127.0.0.1:${servicePort}/api/organization`;
  for (let r = 0; r < 2; r++) rounds.push({ trivial: await load(trivialUrl, {}), fhir: await load(fhirUrl, headers), org: await load(orgUrl, headers) });
  const mean = (k) => ({ rps: rounds.reduce((s, x) => s + x[k].rps, 0) / rounds.length, failed: rounds.reduce((s, x) => s + x[k].failed, 0) });
  const [trivial, fhir, org] = allMeasured([
    { label: "trivial Worker req/s", value: mean("trivial").rps, errors: mean("trivial").failed },
    { label: "FHIR read req/s", value: mean("fhir").rps, errors: mean("fhir").failed },
    { label: "management org read req/s", value: mean("org").rps, errors: mean("org").failed },
  ]);
  console.log(`HTTP through wrangler dev (${concurrency} concurrent, ${seconds}s x ${rounds.length} rounds)`);
  console.log(`trivial Worker (1 D1 point read): ${trivial.toFixed(0)} req/s`);
  console.log(`FHIR read (auth + rate limit + read + AuditEvent): ${fhir.toFixed(0)} req/s`);
  console.log(`management org read (auth + rate limit + read, no audit): ${org.toFixed(0)} req/s`);
  console.log(`ratio FHIR read / trivial: ${(fhir / trivial).toFixed(2)}x (target >= 0.6x); org read / trivial: ${(org / trivial).toFixed(2)}x`);
}

main()
  .catch((e) => {
    console.error(e);
    process.exitCode = 1;
  })
  .finally(() => {
    for (const c of children) c.kill("SIGTERM");
    rmSync(persist, { recursive: true, force: true });
  });
