// In-process benchmark of the X12 reader and the 837P → FHIR mapping, with a baseline
// measured in the same run: JSON.parse of a JSON payload of the same byte size.
// The input is the 837P fixture with its claim repeated (one subscriber loop per claim).
// Run: npx tsx bench/x12.ts [--seconds N per measurement, default 1] [--claims N, default 200]

import fs from "node:fs";
import path from "node:path";
import { x12ToFhir } from "../src/standards/x12/fhir/index";
import { readX12 } from "../src/standards/x12/read";
import type { NodeContext } from "../src/features/pipelines/node-type";
import { x12ToFhirNode } from "../src/standards/x12/nodes/to-fhir";
import { allMeasured, measured } from "./lib/measured";
import { numberOption } from "./lib/options";

const SECONDS = numberOption("seconds", 1);
const CLAIMS = numberOption("claims", 200, { integer: true });
const FIXTURE = path.resolve(import.meta.dirname, "../test/fixtures/x12/837P-subscriber.x12");

/** The fixture with its subscriber loop (HL*2 … before SE) repeated `n` times, counts fixed. */
function manyClaims(n: number): string {
  const lines = fs.readFileSync(FIXTURE, "utf8").split("~\n");
  const start = lines.findIndex((l) => l.startsWith("HL*2*"));
  const end = lines.findIndex((l) => l.startsWith("SE*"));
  const head = lines.slice(0, start);
  const loop = lines.slice(start, end);
  const body: string[] = [];
  for (let i = 0; i < n; i++) body.push(...loop.map((l) => l.replace(/^HL\*2\*1\*/, `HL*${i + 2}*1*`).replace("CLM*PCN1001*", `CLM*PCN${100000 + i}*`)));
  const segments = head.length - 2 + body.length + 1; // from ST (third line) to SE
  return [...head, ...body, `SE*${segments}*0001`, "GE*1*101", "IEA*1*000000101~\n"].join("~\n");
}

async function rate(f: () => unknown | Promise<unknown>, seconds = SECONDS): Promise<number> {
  for (let i = 0; i < 3; i++) await f(); // warm-up
  let n = 0;
  const start = performance.now();
  const until = start + seconds * 1000;
  let now = start;
  while (now < until) {
    await f();
    n++;
    now = performance.now();
  }
  return (n * 1000) / (now - start);
}

const text = manyClaims(CLAIMS);
const read = readX12(text);
if (read.issues.length) throw new Error(`the bench input has issues: ${read.issues[0]!.message}`);
const segments = measured({ label: "segments in the input", value: read.transactions[0]!.tx.body.length + 2 });
const claims = measured({ label: "claims in the input", value: (await x12ToFhir(read))[0]!.bundle.entry!.filter((e) => e.resource!.resourceType === "Claim").length });
/** JSON of the same byte size as `x12`: its segments as arrays of elements, as many as fit, padded. */
function sameSizeJson(x12: string): string {
  const rows: string[] = [];
  let size = 16; // {"segments":[]}
  for (const s of x12.split("~\n")) {
    const row = JSON.stringify(s.split("*"));
    if (size + row.length + 1 > x12.length - 12) break;
    rows.push(row);
    size += row.length + 1;
  }
  const head = `{"segments":[${rows.join(",")}],"pad":"`;
  return `${head}${"x".repeat(Math.max(0, x12.length - head.length - 2))}"}`;
}
const payload = sameSizeJson(text);
if (payload.length !== text.length) throw new Error(`baseline payload is ${payload.length} bytes, not ${text.length}`);

/** The X12 to FHIR node's own run (config parsed as the engine does; nothing stored, no store lookups). */
const nodeContext = {
  nodeId: "n",
  config: x12ToFhirNode.config.parse({ store: false, resolve_references: false }),
  inputs: { interchange: text },
  orgId: "bench",
  executionId: "bench",
  testMode: false,
  trigger: { kind: "manual" },
  services: { fhir: () => undefined },
  signal: new AbortController().signal,
  resumed: false,
  log: () => undefined,
  wouldWrite: () => undefined,
  runBody: () => Promise.reject(new Error("no bodies")),
} as unknown as NodeContext<unknown>;

const [baseline, parse, mapOnly, map, node] = allMeasured([
  { label: "JSON.parse baseline/s", value: await rate(() => JSON.parse(payload)) },
  { label: "X12 read (tokenize + envelopes + loops)/s", value: await rate(() => readX12(text)) },
  { label: "837P → FHIR (map of a read file)/s", value: await rate(() => x12ToFhir(read)) },
  { label: "837P → FHIR (read + map)/s", value: await rate(() => x12ToFhir(readX12(text))) },
  { label: "X12 to FHIR node runs/s", value: await rate(() => x12ToFhirNode.run(nodeContext)) },
]);

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
console.log(`X12 837P: ${text.length} bytes, ${segments} segments, ${claims} claims (${SECONDS}s per measurement, node ${process.version})`);
console.log(`baseline = JSON.parse of ${payload.length} bytes of JSON, measured in the same run`);
console.log(`JSON.parse:          ${fmt(baseline)} files/s = ${fmt(baseline * payload.length / 1e6)} MB/s`);
console.log(`X12 read:            ${fmt(parse * segments)} segments/s (${fmt(parse)} files/s), ${(parse / baseline).toFixed(2)} × baseline`);
console.log(`837P → FHIR (map):   ${fmt(mapOnly * claims)} claims/s (${fmt(mapOnly)} files/s), ${(mapOnly / baseline).toFixed(2)} × baseline`);
console.log(`837P → FHIR (both):  ${fmt(map * claims)} claims/s (${fmt(map)} files/s), ${(map / baseline).toFixed(2)} × baseline`);
console.log(`X12 to FHIR node:    ${fmt(node * claims)} claims/s (${fmt(node)} runs/s), ${(node / baseline).toFixed(2)} × baseline, ${(node / map).toFixed(2)} × the codec call (read + map)`);
