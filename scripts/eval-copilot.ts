// `npm run eval:copilot`: sends every request of scripts/eval/copilot-requests.ts to
// POST /api/copilot/generate/pipeline of a service with a real model and reports the share
// of generated pipelines the service accepts (the copilot returns only validated ones, so a
// 422 counts as not validating) and the share that execute in test_mode without error.
//
// Model: LLM_BASE_URL and LLM_MODELS (an OpenAI-compatible endpoint, e.g. llama.cpp or Ollama
// on loopback); the script starts the service under wrangler dev with them. Or point it at a
// running service: COPILOT_EVAL_URL, COPILOT_EVAL_API_KEY, COPILOT_EVAL_ORG.
// Without a model it says so and exits 0. Options: --limit N (first N requests), --min-valid and
// --min-executed (shares 0..1, default 0): below either, or when the harness itself fails, it
// exits 1. The last line is `EVAL_RESULT {json}` for CI. A smoke test runs it end to end against
// the fake OpenAI-compatible server (test/unit/scripts/eval-copilot.test.ts); that proves the
// harness, not a model.
import { type RunningWorker, startWorker } from "../bench/lib/worker";
import { EVAL_REQUESTS } from "./eval/copilot-requests";

interface Target {
  url: string;
  headers: Record<string, string>;
  stop(): Promise<void>;
}

async function target(): Promise<Target | undefined> {
  const { COPILOT_EVAL_URL, COPILOT_EVAL_API_KEY, COPILOT_EVAL_ORG, LLM_BASE_URL, LLM_MODELS, LLM_API_KEY } = process.env;
  if (COPILOT_EVAL_URL && COPILOT_EVAL_API_KEY && COPILOT_EVAL_ORG) {
    return { url: COPILOT_EVAL_URL.replace(/\/+$/, ""), headers: { authorization: `Bearer ${COPILOT_EVAL_API_KEY}`, "x-organization-id": COPILOT_EVAL_ORG }, stop: async () => undefined };
  }
  if (!LLM_BASE_URL || !LLM_MODELS) return undefined;
  console.log(`Starting the service (wrangler dev) with the model endpoint ${LLM_BASE_URL} (${LLM_MODELS})...`);
  const worker: RunningWorker = await startWorker({
    vars: { LLM_BASE_URL, LLM_MODELS, ...(LLM_API_KEY ? { LLM_API_KEY } : {}) },
    limits: { copilotPerMinute: 100_000, apiPerMinute: 100_000 },
  });
  return { url: worker.url, headers: worker.headers, stop: () => worker.stop() };
}

async function call(t: Target, method: string, path: string, body?: unknown) {
  const res = await fetch(`${t.url}${path}`, {
    method,
    headers: { ...t.headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, body: json as Record<string, unknown> };
}

const option = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : undefined;
};
const limit = option("--limit");
const requests = limit ? EVAL_REQUESTS.slice(0, limit) : EVAL_REQUESTS;
const minValid = option("--min-valid") ?? 0;
const minExecuted = option("--min-executed") ?? 0;

const t = await target();
if (!t) {
  console.log("eval:copilot skipped: no model configured. Set LLM_BASE_URL and LLM_MODELS (an OpenAI-compatible endpoint), or COPILOT_EVAL_URL, COPILOT_EVAL_API_KEY and COPILOT_EVAL_ORG for a running service.");
  process.exit(0);
}
try {
  const health = await call(t, "GET", "/api/copilot/health");
  const model = (health.body as { model?: { available: boolean; id: string | null; reason?: string } }).model;
  if (health.status !== 200 || !model?.available) {
    console.log(`eval:copilot skipped: the service has no usable model (${model?.reason ?? `health answered ${health.status}`}).`);
    process.exit(0);
  }
  console.log(`Model ${model.id}; ${requests.length} requests.\n`);
  let validated = 0;
  let executed = 0;
  for (const r of requests) {
    const started = Date.now();
    const gen = await call(t, "POST", "/api/copilot/generate/pipeline", { description: r.description });
    let line = `${r.id.padEnd(18)} `;
    if (gen.status !== 200) {
      const err = (gen.body as { error?: { code: string; details?: { message: string }[] } }).error;
      console.log(`${line}not valid (${gen.status} ${err?.code ?? ""}: ${err?.details?.[0]?.message ?? ""})`);
      continue;
    }
    validated++;
    const p = (gen.body as { pipeline: { name: string; description: string; nodes: unknown[]; connections: unknown[] }; attempts: number }).pipeline;
    line += `valid (${(gen.body as { attempts: number }).attempts} attempts, ${p.nodes.length} nodes, ${((Date.now() - started) / 1000).toFixed(1)} s)`;
    const created = await call(t, "POST", "/api/pipelines", { name: p.name.slice(0, 200), description: p.description, definition: { nodes: p.nodes, connections: p.connections } });
    if (created.status !== 201) {
      console.log(`${line}; refused on save (${created.status})`);
      continue;
    }
    const id = (created.body as { id: string }).id;
    const run = await call(t, "POST", "/api/execute", { pipeline_id: id, inputs: r.inputs, test_mode: true });
    const status = (run.body as { status?: string }).status;
    if (run.status === 200 && status === "completed") {
      executed++;
      console.log(`${line}; test_mode run completed`);
    } else {
      const error = (run.body as { error?: { code?: string; message?: string; node_id?: string } }).error;
      console.log(`${line}; test_mode run ${status ?? run.status}: ${error?.node_id ?? ""} ${error?.code ?? ""} ${error?.message ?? ""}`.trimEnd());
    }
    await call(t, "DELETE", `/api/pipelines/${id}`);
  }
  const pct = (n: number) => `${((n / requests.length) * 100).toFixed(0)}%`;
  console.log(`\nvalidated: ${validated}/${requests.length} (${pct(validated)})`);
  console.log(`executed in test_mode without error: ${executed}/${requests.length} (${pct(executed)})`);
  const result = { model: model.id, requests: requests.length, validated, executed, validated_share: validated / requests.length, executed_share: executed / requests.length };
  console.log(`EVAL_RESULT ${JSON.stringify(result)}`);
  if (result.validated_share < minValid || result.executed_share < minExecuted) {
    console.error(`eval:copilot FAILED: validated ${pct(validated)} (minimum ${minValid * 100}%), executed ${pct(executed)} (minimum ${minExecuted * 100}%)`);
    process.exitCode = 1;
  }
} catch (err) {
  console.error(`eval:copilot FAILED: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
} finally {
  await t.stop();
}
