// Two organizations loaded at once, on two data shards vs on one, through the real Worker
// (wrangler dev, where each shard is its own SQLite database). Each org posts FHIR transaction
// Bundles with a few requests in flight; the figure is resources stored per second for both
// together. Same run, same worker: orgs 1-2 are on SHARD_0 and SHARD_1, orgs 3-4 both on
// SHARD_0; the phases alternate (one shard first) and each keeps its best round.
// Usage: npx tsx bench/shards.ts [--bundles 40] [--per-bundle 25] [--in-flight 4] [--rounds 2]
import { allMeasured } from "./lib/measured";
import { numberOption } from "./lib/options";
import { type Credentials, type RunningWorker, startWorker } from "./lib/worker";

const BUNDLES = numberOption("bundles", 40, { integer: true });
const PER_BUNDLE = numberOption("per-bundle", 25, { integer: true });
const IN_FLIGHT = numberOption("in-flight", 4, { integer: true });
const ROUNDS = numberOption("rounds", 2, { integer: true });

const bundle = () => ({
  resourceType: "Bundle",
  type: "transaction",
  entry: Array.from({ length: PER_BUNDLE }, (_, i) => ({
    resource: { resourceType: "Patient", name: [{ family: `Shard${i}` }], gender: "other", birthDate: "1970-01-01" },
    request: { method: "POST", url: "Patient" },
  })),
});

/** Posts BUNDLES transactions for `org`, IN_FLIGHT at a time; answers the failures. */
async function loadOrg(w: RunningWorker, org: Credentials): Promise<number> {
  let next = 0;
  let failed = 0;
  const lane = async () => {
    while (next < BUNDLES) {
      next += 1;
      const res = await fetch(`${w.url}/fhir/r4/${org.orgId}`, { method: "POST", headers: { ...org.headers, "content-type": "application/fhir+json" }, body: JSON.stringify(bundle()) });
      await res.arrayBuffer();
      if (res.status !== 200) failed += 1;
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  return failed;
}

/** Resources per second storing both orgs' load at once. */
async function pair(w: RunningWorker, a: Credentials, b: Credentials, label: string): Promise<number> {
  const start = performance.now();
  const failed = (await Promise.all([loadOrg(w, a), loadOrg(w, b)])).reduce((x, y) => x + y, 0);
  const seconds = (performance.now() - start) / 1000;
  const [rate] = allMeasured([{ label, value: (2 * BUNDLES * PER_BUNDLE) / seconds, errors: failed }] as const);
  return rate;
}

const w = await startWorker({ otherOrgs: 3, orgShards: ["SHARD_0", "SHARD_1", "SHARD_0", "SHARD_0"] });
try {
  const [other1, sameA, sameB] = w.others as [Credentials, Credentials, Credentials];
  let oneShard = 0;
  let twoShards = 0;
  for (let round = 1; round <= ROUNDS; round++) {
    oneShard = Math.max(oneShard, await pair(w, sameA, sameB, "one shard resources/s"));
    twoShards = Math.max(twoShards, await pair(w, w, other1, "two shards resources/s"));
  }
  console.log(`two orgs x ${BUNDLES} Bundles x ${PER_BUNDLE} Patients, ${IN_FLIGHT} in flight each, best of ${ROUNDS}:`);
  console.log(`  both on one shard:   ${oneShard.toFixed(0)} resources/s`);
  console.log(`  on two shards:       ${twoShards.toFixed(0)} resources/s`);
  console.log(`  ratio (two / one):   ${(twoShards / oneShard).toFixed(2)}`);
} finally {
  await w.stop();
}
