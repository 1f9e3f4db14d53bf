// Pipeline engine benchmark, in-process (Node): engine overhead per node on a
// 50-node linear pipeline, and executions per second of a 5-node pipeline.
// Targets: <= 0.2 ms per node, >= 250 executions/s. Run: npx tsx bench/pipeline-engine.ts
import { z } from "zod";
import { ExecutionPlan, ExecutionRun } from "../src/features/pipelines/engine";
import { defineNode } from "../src/features/pipelines/node-type";
import { CONTROL_NODES, DATA_NODES } from "../src/features/pipelines/nodes";
import { NodeRegistry } from "../src/features/pipelines/registry";
import type { PipelineServices } from "../src/features/pipelines/services";
import { allMeasured } from "./lib/measured";

/** A node that does nothing, so its run time is the engine's own overhead. */
const passThrough = defineNode({
  id: "bench.pass",
  name: "Pass",
  category: "data",
  description: "Emits its input",
  keywords: [],
  inputs: [{ name: "input", type: "any" }],
  outputs: [{ name: "output", type: "json" }],
  config: z.object({}).strict(),
  documentation: { summary: "", example: { config: {} } },
  run: async (ctx) => ({ outputs: { output: ctx.inputs.input } }),
});

const registry = new NodeRegistry([CONTROL_NODES, DATA_NODES, [passThrough]]);
const unused = () => {
  throw new Error("not used by the benchmark");
};
const services: PipelineServices = { fhir: unused, validateResource: unused, connectors: { fetch: unused, exchange: unused, connect: unused, test: unused, endpoint: unused, type: unused, secrets: unused }, files: { put: unused, get: unused, peek: unused }, fetch: unused, consent: { policy: unused, decide: unused, patientsByIdentifier: unused }, destinations: { enqueue: unused, settings: unused }, ai: unused };

function linear(n: number, type: string, config: Record<string, unknown>) {
  const nodes = [{ id: "n0", type: "control.manual_trigger", config: {} }];
  const connections = [];
  for (let i = 1; i < n; i++) {
    nodes.push({ id: `n${i}`, type, config });
    connections.push({ from: { node: `n${i - 1}`, port: i === 1 ? "event" : "output" }, to: { node: `n${i}`, port: "input" } });
  }
  return { nodes, connections };
}

async function execute(plan: ExecutionPlan, inputs: unknown) {
  const run = new ExecutionRun(plan, plan.initialState(inputs), {
    orgId: "bench",
    executionId: "bench",
    testMode: false,
    trigger: { kind: "manual" },
    services,
    inlineWaitMaxMs: 0,
    durableWaits: false,
  });
  await run.runToEnd();
  if (run.state.stopped_by) throw new Error(run.state.stopped_by.message);
}

async function timeIt(label: string, iterations: number, fn: () => Promise<void>) {
  for (let i = 0; i < Math.min(200, iterations); i++) await fn(); // warm-up
  const start = performance.now();
  for (let i = 0; i < iterations; i++) await fn();
  const ms = performance.now() - start;
  return { label, iterations, ms };
}

const input = { resourceType: "Patient", id: "p1", name: [{ family: "Lovelace", given: ["Ada"] }] };
const fifty = ExecutionPlan.compile(linear(50, "bench.pass", {}), registry);
const fiftyJsonata = ExecutionPlan.compile(linear(50, "data.transform", { expression: "$" }), registry);
const five = ExecutionPlan.compile(
  {
    nodes: [
      { id: "start", type: "control.manual_trigger", config: {} },
      { id: "check", type: "control.condition", config: { expression: "resourceType = 'Patient'" } },
      { id: "shape", type: "data.transform", config: { expression: "{'id': id, 'family': name[0].family}" } },
      { id: "tag", type: "data.set_fields", config: { fields: { source: "'bench'" } } },
      { id: "valid", type: "data.json_schema_validate", config: { schema: { type: "object", required: ["id", "family"] } } },
    ],
    connections: [
      { from: { node: "start", port: "event" }, to: { node: "check", port: "input" } },
      { from: { node: "check", port: "true" }, to: { node: "shape", port: "input" } },
      { from: { node: "shape", port: "output" }, to: { node: "tag", port: "input" } },
      { from: { node: "tag", port: "output" }, to: { node: "valid", port: "input" } },
    ],
  },
  registry,
);

const perNode = await timeIt("50-node linear, pass-through nodes", 2000, () => execute(fifty, input));
const perNodeJsonata = await timeIt("50-node linear, JSONata '$' nodes", 500, () => execute(fiftyJsonata, input));
const fiveNode = await timeIt("5-node pipeline (condition, transform, set fields, schema validate)", 5000, () => execute(five, input));

const nodeMs = (r: { ms: number; iterations: number }) => r.ms / r.iterations / 50;
allMeasured([perNode, perNodeJsonata, fiveNode].map((r) => ({ label: `${r.label}: ms per run`, value: r.ms / r.iterations })));
console.log(`engine overhead per node (pass-through): ${(nodeMs(perNode) * 1000).toFixed(1)} µs  (target <= 200 µs)`);
console.log(`per node with a JSONata transform:       ${(nodeMs(perNodeJsonata) * 1000).toFixed(1)} µs`);
console.log(`5-node pipeline: ${(fiveNode.iterations / (fiveNode.ms / 1000)).toFixed(0)} executions/s in one thread  (target >= 250/s)`);
console.log(`5-node pipeline: ${((fiveNode.ms / fiveNode.iterations) * 1000).toFixed(0)} µs per execution`);
