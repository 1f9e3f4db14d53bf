// Copilot benchmark, in-process (Node): p50 latency of the deterministic endpoints' work on a
// 50-node pipeline (validate with warnings, static analysis with suggestions, docs,
// auto-configure) and of schema inference on 50 samples, each as a ratio to the raw definition
// validator (checkDefinition, which every pipeline save runs) measured in the same run.
// Target: p50 <= 5 ms each. Run: npm run bench -- copilot [--iterations N]
import { autoConfigure } from "../src/features/copilot/configure";
import { improvements } from "../src/features/copilot/improvements";
import { inferSchema } from "../src/features/copilot/infer-schema";
import { pipelineDocs } from "../src/features/copilot/pipeline-docs";
import { validatePipeline } from "../src/features/copilot/validate";
import { DefinitionSchema } from "../src/features/pipelines/definition";
import { NodeRegistry } from "../src/features/pipelines/registry";
import { checkDefinition } from "../src/features/pipelines/validate-definition";
import { NODE_FAMILIES } from "../src/main/catalogs";
import { allMeasured, sampled } from "./lib/measured";

/** The deployment's node catalog, as src/main/context.ts builds it. */
const registry = new NodeRegistry(NODE_FAMILIES);

const arg = process.argv.indexOf("--iterations");
const ITERATIONS = arg > 0 ? Number(process.argv[arg + 1]) : 300;

/** 50 nodes: a trigger, then 7 branches of condition → transform → set fields → http → log, and → create; a log after the http error route (odd branches) or the create (even). */
function fiftyNodes() {
  const nodes: Record<string, unknown>[] = [{ id: "start", type: "control.manual_trigger", config: {} }];
  const connections: Record<string, unknown>[] = [];
  const edge = (from: string, fromPort: string, to: string, toPort = "input") => connections.push({ from: { node: from, port: fromPort }, to: { node: to, port: toPort } });
  for (let b = 0; b < 7; b++) {
    const id = (s: string) => `b${b}_${s}`;
    nodes.push(
      { id: id("if"), type: "control.condition", config: { expression: `kind = ${b}` } },
      { id: id("shape"), type: "data.transform", config: { expression: '{"id": id, "family": name[0].family}' } },
      { id: id("tag"), type: "data.set_fields", config: { fields: { branch: `'${b}'` } } },
      { id: id("post"), type: "output.http_request", config: { url: `https://ehr${b}.example.net/hook`, method: "POST" }, on_error: b % 2 ? "route" : "stop" },
      { id: id("log"), type: "output.log", config: {} },
      { id: id("create"), type: "fhir.create", config: {} },
      { id: id("done"), type: "output.log", config: { level: "info" } },
    );
    edge("start", "event", id("if"));
    edge(id("if"), "true", id("shape"));
    edge(id("shape"), "output", id("tag"));
    edge(id("tag"), "output", id("post"));
    edge(id("post"), "response", id("log"));
    if (b % 2) edge(id("post"), "error", id("done"));
    else edge(id("create"), "resource", id("done"));
    edge(id("tag"), "output", id("create"), "resource");
  }
  nodes.push({ id: "tail", type: "output.log", config: {} });
  edge("b0_log", "output", "tail");
  return { nodes, connections };
}

const raw = fiftyNodes();
if (raw.nodes.length < 50) throw new Error(`expected at least 50 nodes, built ${raw.nodes.length}`);
const definition = DefinitionSchema.parse(raw);
const checked = validatePipeline(raw, registry);
if (!checked.valid) throw new Error(`the benchmark pipeline does not validate: ${JSON.stringify(checked.errors.slice(0, 3))}`);
const samples = Array.from({ length: 50 }, (_, i) => ({
  id: `obs-${i}`,
  status: i % 3 ? "final" : "amended",
  effective: new Date(Date.UTC(2024, 0, 1 + i)).toISOString(),
  value: { value: 60 + i / 10, unit: "bpm" },
  codes: [{ system: "http://loinc.org", code: "8867-4" }],
}));

function p50(label: string, fn: () => unknown): { label: string; value: number } {
  for (let i = 0; i < Math.min(50, ITERATIONS); i++) fn(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  const sorted = [...sampled(label, times)].sort((a, b) => a - b);
  return { label, value: sorted[Math.floor(sorted.length / 2)] as number };
}

const ctx = { connectors: [{ id: "c1", name: "EHR", type: "fhir" }] };
const baseline = p50("raw validator (checkDefinition)", () => checkDefinition(raw, registry));
const figures = [
  p50("validate/pipeline (validator + warnings)", () => validatePipeline(raw, registry)),
  p50("analyze, static (validate + suggestions)", () => {
    validatePipeline(raw, registry);
    improvements(definition, registry, undefined, ctx);
  }),
  p50("generate/pipeline-docs", () => pipelineDocs({ name: "Bench", definition }, registry)),
  p50("auto-configure/pipeline", () => autoConfigure(definition, registry, ctx)),
  p50("infer/schema (50 samples)", () => inferSchema(samples)),
];
const [base, ...values] = allMeasured([{ label: `${baseline.label} p50 ms`, value: baseline.value }, ...figures.map((f) => ({ label: `${f.label} p50 ms`, value: f.value }))]);
console.log(`50-node pipeline (${raw.nodes.length} nodes, ${raw.connections.length} connections), ${ITERATIONS} iterations each, p50:`);
console.log(`  ${baseline.label.padEnd(44)} ${(base as number).toFixed(3)} ms  (baseline)`);
figures.forEach((f, i) => {
  const v = values[i] as number;
  console.log(`  ${f.label.padEnd(44)} ${v.toFixed(3)} ms  ${(v / (base as number)).toFixed(2)}x baseline  ${v <= 5 ? "(<= 5 ms target)" : "(OVER the 5 ms target)"}`);
});
