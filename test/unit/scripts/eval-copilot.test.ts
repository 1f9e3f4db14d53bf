// Smoke test of `npm run eval:copilot` end to end: against a running service (npm start's runtime,
// started once for both cases) whose model is the fake OpenAI-compatible server on loopback, the
// harness generates, saves and runs pipelines in test_mode, prints its scores and exits non-zero
// when they are under the minimums. It proves the harness, not a model: real-model figures come
// only from a real endpoint (docs/copilot.md). The harness's own start of a service, when given
// only LLM_BASE_URL and LLM_MODELS, is bench/lib/worker.ts's `startWorker`, which every bench runs.
import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningWorker, startWorker } from "../../../bench/lib/worker";
import { type Brain, fakeOpenAI } from "../../support/fake-openai";
import { type LoopbackServer, serveOnLoopback } from "../../support/loopback-http";

const ROOT = path.join(import.meta.dirname, "../../..");
const valid = {
  name: "ADT to log",
  description: "Logs the event",
  nodes: [
    { id: "start", type: "control.manual_trigger", config: {} },
    { id: "log", type: "output.log", config: {} },
  ],
  connections: [{ from: { node: "start", port: "event" }, to: { node: "log", port: "input" } }],
};
let brain: Brain = () => ({ content: JSON.stringify(valid) });
const fake = fakeOpenAI((req, i) => brain(req, i), ["eval-model"]);
let loopback: LoopbackServer;
let service: RunningWorker;

beforeAll(async () => {
  loopback = await serveOnLoopback((url, init) => fake.fetch(url, init));
  service = await startWorker({
    runtime: "miniflare",
    startTimeoutMs: 170_000,
    vars: { LLM_BASE_URL: `${loopback.origin}/v1`, LLM_MODELS: "eval-model" },
    limits: { copilotPerMinute: 100_000, apiPerMinute: 100_000 },
  });
}, 180_000);
afterAll(async () => {
  await service?.stop();
  await loopback?.close();
});

function evalRun(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn("npx", ["tsx", "scripts/eval-copilot.ts", ...args], { cwd: ROOT, env: { ...process.env, COPILOT_EVAL_URL: service.url, COPILOT_EVAL_API_KEY: service.apiKey, COPILOT_EVAL_ORG: service.orgId } });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("close", (code) => resolve({ code, out }));
  });
}

const resultOf = (out: string) => JSON.parse(/EVAL_RESULT (.+)/.exec(out)?.[1] ?? "null") as { validated: number; executed: number; requests: number } | null;

describe("eval:copilot", () => {
  it("scores generated pipelines end to end and passes its minimums", async () => {
    brain = () => ({ content: JSON.stringify(valid) });
    const r = await evalRun(["--limit", "2", "--min-valid", "1", "--min-executed", "1"]);
    expect(r.code, r.out).toBe(0);
    expect(resultOf(r.out)).toMatchObject({ requests: 2, validated: 2, executed: 2 });
  }, 300_000);

  it("exits non-zero when the model's pipelines never validate", async () => {
    brain = () => ({ content: JSON.stringify({ ...valid, nodes: [valid.nodes[0], { id: "log", type: "output.nope", config: {} }] }) });
    const r = await evalRun(["--limit", "1", "--min-valid", "0.5"]);
    expect(r.code, r.out).toBe(1);
    expect(resultOf(r.out)).toMatchObject({ requests: 1, validated: 0 });
    expect(r.out).toMatch(/eval:copilot FAILED/);
  }, 300_000);
});
