// The cost of a SMART access token on the FHIR hot path (issue #34): GET Patient/{id} with a
// bearer access token (Backend Services: client_credentials + private_key_jwt, system/Patient.rs)
// beside the same read with an API key, in the same runtime (npm start's), in alternating rounds
// (--rounds, default 3: each token round right after a key round as long); the ratio is the
// median of the rounds' req/s ratios. A token is verified against the org's signing keys cached
// per isolate and judged by the SMART scope policy; the key is looked up in the isolate's key
// cache. Target: token/key >= 0.95x (verification must not cost a round trip).
// Usage: npm run bench -- auth [--seconds 10] [--rounds 3] [--concurrency 16]
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { type LoadResult, combine, formatResult, load, median, throughput } from "./lib/load";
import { allMeasured } from "./lib/measured";
import { numberOption } from "./lib/options";
import { startWorker } from "./lib/worker";

const seconds = numberOption("seconds", 10);
const rounds = numberOption("rounds", 3, { integer: true });
const concurrency = numberOption("concurrency", 16, { integer: true });
const TARGET = 0.95;
/** The org's and the per-IP windows, far above what the clients send: the figures are the cost of serving, not of 429s. */
const LIMITS = 10_000_000;

const worker = await startWorker({ runtime: "miniflare", vars: { LIMIT_API_PER_MINUTE: String(LIMITS), LIMIT_PUBLIC_PER_MINUTE: String(LIMITS) } });
try {
  const fhir = `${worker.url}/fhir/r4/${worker.orgId}`;
  const created = await fetch(`${fhir}/Patient`, { method: "POST", headers: { ...worker.headers, "content-type": "application/fhir+json" }, body: JSON.stringify({ resourceType: "Patient", name: [{ family: "Bench" }] }) });
  if (created.status !== 201) throw new Error(`creating the Patient answered ${created.status}: ${await created.text()}`);
  const { id } = (await created.json()) as { id: string };

  const { privateKey, publicKey } = await generateKeyPair("ES384", { extractable: true });
  const kid = crypto.randomUUID();
  const registered = await fetch(`${worker.url}/api/v1/client-applications`, {
    method: "POST",
    headers: { ...worker.headers, "content-type": "application/json" },
    body: JSON.stringify({ name: "bench backend", jwks: { keys: [{ ...(await exportJWK(publicKey)), kid, alg: "ES384", use: "sig" }] }, scopes: ["system/Patient.rs"] }),
  });
  if (registered.status !== 201) throw new Error(`registering the client answered ${registered.status}: ${await registered.text()}`);
  const client = (await registered.json()) as { id: string };

  /** A fresh token (they live 5 minutes; one per round keeps a long run valid). */
  const accessToken = async (): Promise<string> => {
    const tokenUrl = `${fhir}/auth/token`;
    const now = Math.floor(Date.now() / 1000);
    const assertion = await new SignJWT({}).setProtectedHeader({ alg: "ES384", kid, typ: "JWT" }).setIssuer(client.id).setSubject(client.id).setAudience(tokenUrl).setExpirationTime(now + 240).setJti(crypto.randomUUID()).sign(privateKey);
    const body = new URLSearchParams({ grant_type: "client_credentials", client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer", client_assertion: assertion, scope: "system/Patient.rs" });
    const res = await fetch(tokenUrl, { method: "POST", body, headers: { "content-type": "application/x-www-form-urlencoded" } });
    if (res.status !== 200) throw new Error(`the token endpoint answered ${res.status}: ${await res.text()}`);
    return ((await res.json()) as { access_token: string }).access_token;
  };

  const readWith = async (label: string, headers: Record<string, string>, s: number) => {
    // One read first, so a refusal is reported with its answer rather than as a count of errors.
    const probe = await fetch(`${fhir}/Patient/${id}`, { headers });
    if (probe.status !== 200) throw new Error(`${label}: the read answered ${probe.status}: ${await probe.text()}`);
    return load(label, () => fetch(`${fhir}/Patient/${id}`, { headers }), { concurrency, seconds: s });
  };
  const keyHeaders = { ...worker.headers, accept: "application/fhir+json" };
  // Warm both paths: isolate, key cache, the org's signing keys.
  await readWith("warm-up", keyHeaders, 2);
  await readWith("warm-up", { authorization: `Bearer ${await accessToken()}`, accept: "application/fhir+json" }, 2);

  const keyRounds: LoadResult[] = [];
  const tokenRounds: LoadResult[] = [];
  for (let i = 0; i < rounds; i++) {
    const tokenHeaders = { authorization: `Bearer ${await accessToken()}`, accept: "application/fhir+json" };
    keyRounds.push(await readWith("read by id, API key", keyHeaders, seconds / rounds));
    tokenRounds.push(await readWith("read by id, SMART access token", tokenHeaders, seconds / rounds));
  }
  const key = combine("read by id, API key", keyRounds);
  const token = combine("read by id, SMART access token", tokenRounds);
  allMeasured([throughput(key), throughput(token)]);
  const ratio = median(tokenRounds.map((t, i) => t.rps / keyRounds[i]!.rps));
  console.log(`auth on npm start's runtime: ${concurrency} connections, ${seconds} s per credential in ${rounds} alternating rounds`);
  console.log(formatResult(key));
  console.log(formatResult(token));
  console.log(`ratio token/key: throughput ${ratio.toFixed(2)}x (median of the rounds), p50 latency ${(token.p50 / key.p50).toFixed(2)}x`);
  console.log(`${ratio >= TARGET ? "met " : "MISS"} bearer access token read: ${ratio.toFixed(2)}x the API key's (target >= ${TARGET}x)`);
} finally {
  await worker.stop();
}
