// `npm run bench -- code-node`: what the code.javascript node costs a pipeline, on npm start's
// runtime (Miniflare). The same two-node pipeline (manual trigger, then one node) with a trivial
// code node and with a data.transform node doing the same reshaping, in alternating rounds of the
// same run: executions/s of each and their ratio (target >= 0.5x once warm); the per-run overhead
// of the code node (p50 latency at one client, code minus transform); and the cold start of a new
// code version (a new pipeline version's first execution, against a new JSONata version's).
import { formatResult, load, type LoadResult, median, throughput } from "./lib/load";
import { allMeasured, sampled } from "./lib/measured";
import { numberOption } from "./lib/options";
import { type RunningWorker, startWorker } from "./lib/worker";

const seconds = numberOption("seconds", Number(process.env.BENCH_SECONDS ?? 4));
const concurrency = numberOption("concurrency", Number(process.env.BENCH_CONCURRENCY ?? 4), { integer: true });
const rounds = numberOption("rounds", 2, { integer: true });
const versions = numberOption("versions", 8, { integer: true });

const CODE = "export default (input) => ({ id: input.id, family: input.name?.[0]?.family });";
const JSONATA = '{ "id": id, "family": name[0].family }';
const input = { resourceType: "Patient", id: "p1", name: [{ family: "Lovelace", given: ["Ada"] }] };
const expected = { id: "p1", family: "Lovelace" };

const definition = (node: { type: string; config: Record<string, unknown> }) => ({
  nodes: [
    { id: "start", type: "control.manual_trigger", config: {} },
    { id: "work", ...node },
  ],
  connections: [{ from: { node: "start", port: "event" }, to: { node: "work", port: "input" } }],
});
const codeNode = (code: string) => definition({ type: "code.javascript", config: { code } });
const transformNode = (expression: string) => definition({ type: "data.transform", config: { expression } });

async function api(w: RunningWorker, path: string, body: unknown, status: number): Promise<Record<string, unknown>> {
  const res = await fetch(`${w.url}${path}`, { method: "POST", headers: { ...w.headers, "content-type": "application/json" }, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== status) throw new Error(`${path}: ${res.status} ${text.slice(0, 500)}`);
  return text ? (JSON.parse(text) as Record<string, unknown>) : {};
}

async function pipeline(w: RunningWorker, def: unknown): Promise<string> {
  const { id } = (await api(w, "/api/pipelines", { name: "bench", description: "", definition: def }, 201)) as { id: string };
  await api(w, `/api/pipelines/${id}/deploy`, {}, 200);
  return id;
}

const execute = (w: RunningWorker, id: string) => () => fetch(`${w.url}/api/execute`, { method: "POST", headers: { ...w.headers, "content-type": "application/json" }, body: JSON.stringify({ pipeline_id: id, inputs: input }) });

/** An execution under load: a 200 whose run did not complete with the expected output counts as an error. */
const checked = (w: RunningWorker, id: string) => async () => {
  const res = await execute(w, id)();
  const text = await res.text();
  const body = JSON.parse(text) as { status?: string; outputs?: { work?: { output?: unknown } } };
  if (body.status !== "completed" || JSON.stringify(body.outputs?.work?.output) !== JSON.stringify(expected)) throw new Error(`execution of ${id}: ${text.slice(0, 300)}`);
  return new Response(text, { status: res.status });
};

/** One execution, checked (completed, the expected output), and its latency in ms. */
async function timed(w: RunningWorker, id: string): Promise<number> {
  const t0 = performance.now();
  const res = await execute(w, id)();
  const body = (await res.json()) as { status?: string; outputs?: { work?: { output?: unknown } } };
  const ms = performance.now() - t0;
  if (res.status !== 200 || body.status !== "completed" || JSON.stringify(body.outputs?.work?.output) !== JSON.stringify(expected)) throw new Error(`execution of ${id}: ${res.status} ${JSON.stringify(body).slice(0, 500)}`);
  return ms;
}

const w = await startWorker({ runtime: "miniflare", limits: { apiPerMinute: 10_000_000 }, startTimeoutMs: 240_000 });
try {
  const code = await pipeline(w, codeNode(CODE));
  const transform = await pipeline(w, transformNode(JSONATA));
  // Both answer what they should, and the sandbox's instance is up before anything is timed.
  await timed(w, code);
  await timed(w, transform);
  await load("warm-up code", checked(w, code), { concurrency, seconds: 2 });
  await load("warm-up transform", checked(w, transform), { concurrency, seconds: 2 });

  const results: { code: LoadResult[]; transform: LoadResult[]; code1: LoadResult[]; transform1: LoadResult[] } = { code: [], transform: [], code1: [], transform1: [] };
  for (let r = 0; r < rounds; r++) {
    results.transform.push(await load(`data.transform, ${concurrency} clients (round ${r + 1})`, checked(w, transform), { concurrency, seconds }));
    results.code.push(await load(`code.javascript, ${concurrency} clients (round ${r + 1})`, checked(w, code), { concurrency, seconds }));
    results.transform1.push(await load(`data.transform, 1 client (round ${r + 1})`, checked(w, transform), { concurrency: 1, seconds: seconds / 2 }));
    results.code1.push(await load(`code.javascript, 1 client (round ${r + 1})`, checked(w, code), { concurrency: 1, seconds: seconds / 2 }));
  }
  const all = [...results.transform, ...results.code, ...results.transform1, ...results.code1];
  allMeasured(all.map(throughput));
  for (const r of all) console.log(formatResult(r));

  // New versions: each a new pipeline version whose node text is new (a new code hash, a new
  // JSONata expression), its first execution then its second.
  const cold = { code: [] as number[], codeWarm: [] as number[], transform: [] as number[], transformWarm: [] as number[] };
  for (let v = 0; v < versions; v++) {
    const c = await pipeline(w, codeNode(`${CODE}\n// version ${v} ${Date.now()}`));
    cold.code.push(await timed(w, c));
    cold.codeWarm.push(await timed(w, c));
    const t = await pipeline(w, transformNode(`${JSONATA} /* version ${v} ${Date.now()} */`));
    cold.transform.push(await timed(w, t));
    cold.transformWarm.push(await timed(w, t));
  }
  const m = (label: string, xs: number[]) => median([...sampled(label, xs)]);
  const codeRate = median(results.code.map((r) => r.rps));
  const transformRate = median(results.transform.map((r) => r.rps));
  const overhead = median(results.code1.map((r) => r.p50)) - median(results.transform1.map((r) => r.p50));
  const [coldCode, warmCode, coldTransform, warmTransform] = [m("code first", cold.code), m("code second", cold.codeWarm), m("transform first", cold.transform), m("transform second", cold.transformWarm)];
  console.log(`\nMiniflare, ${concurrency} concurrent clients, ${rounds} rounds × ${seconds} s each way; ${versions} new versions each`);
  console.log(`executions/s: code.javascript ${codeRate.toFixed(0)}, data.transform ${transformRate.toFixed(0)}: ${(codeRate / transformRate).toFixed(2)}× (target >= 0.5× once warm)`);
  console.log(`per-run overhead of the code node (p50 at 1 client, code minus transform): ${overhead.toFixed(2)} ms`);
  console.log(`new code version: first execution ${coldCode.toFixed(1)} ms, second ${warmCode.toFixed(1)} ms (compile cost ${(coldCode - warmCode).toFixed(1)} ms); new JSONata version: ${coldTransform.toFixed(1)} ms, then ${warmTransform.toFixed(1)} ms`);
} finally {
  await w.stop();
}
