// generate/pipeline-docs: Markdown documentation of a pipeline from its definition and the
// node catalog alone (no model): purpose, trigger, each node, data flow, error handling.
import type { Definition, NodeRegistry, PipelineNode } from "../pipelines";

export interface DocsInput {
  name?: string;
  description?: string;
  definition: Definition;
}

const code = (s: string) => `\`${s.replace(/`/g, "'")}\``;

function configLines(node: PipelineNode): string[] {
  return Object.entries(node.config).map(([k, v]) => {
    const text = typeof v === "string" ? v : JSON.stringify(v);
    return `  - ${code(k)}: ${text.length > 120 ? `${text.slice(0, 117)}...` : text}`;
  });
}

function errorPolicy(node: PipelineNode): string {
  const retry = node.retry ? `retried up to ${node.retry.max_attempts} attempts (backoff ${node.retry.backoff_ms} ms x${node.retry.backoff_factor})` : "not retried";
  const onError = { stop: "stops the execution", continue: "is skipped and the execution continues", route: "sends the error to its error port" }[node.on_error];
  return `${retry}; on failure it ${onError}${node.timeout_ms ? `; times out after ${node.timeout_ms} ms` : ""}`;
}

export function pipelineDocs(input: DocsInput, registry: NodeRegistry): string {
  const { definition } = input;
  const typeOf = (n: PipelineNode) => registry.get(n.type);
  const triggers = definition.nodes.filter((n) => typeOf(n)?.trigger);
  const out: string[] = [`# ${input.name?.trim() || "Pipeline"}`, ""];

  out.push("## Purpose", "");
  const families = [...new Set(definition.nodes.map((n) => typeOf(n)?.category).filter(Boolean))];
  out.push(
    input.description?.trim() ||
      `A pipeline of ${definition.nodes.length} nodes (${families.join(", ") || "no known node types"}): ${definition.nodes.map((n) => typeOf(n)?.name ?? n.type).join(" → ")}.`,
    "",
  );

  out.push("## Trigger", "");
  if (!triggers.length) out.push("No trigger node: the pipeline cannot start (the validator rejects it).");
  for (const t of triggers) {
    const type = typeOf(t);
    out.push(`- ${code(t.id)} (${type?.name ?? t.type}, ${type?.trigger?.kind ?? "manual"}): ${type?.description ?? ""}`);
    out.push(...configLines(t));
  }
  out.push("");

  out.push("## Nodes", "");
  for (const n of definition.nodes) {
    const type = typeOf(n);
    out.push(`### ${n.id}: ${type?.name ?? `unknown type ${n.type}`}`, "");
    out.push(`Type ${code(n.type)}${type ? ` (${type.category})` : ""}. ${type?.description ?? "Not in the node catalog."}`);
    if (type) {
      if (type.inputs.length) out.push(`- Inputs: ${type.inputs.map((p) => `${code(p.name)} (${p.type})`).join(", ")}`);
      if (type.outputs.length) out.push(`- Outputs: ${type.outputs.map((p) => `${code(p.name)} (${p.type})`).join(", ")}`);
    }
    const config = configLines(n);
    if (config.length) out.push("- Configuration:", ...config);
    out.push(`- Errors: ${errorPolicy(n)}`, "");
  }

  out.push("## Data flow", "");
  if (!definition.connections.length) out.push("No connections.");
  for (const c of definition.connections) out.push(`- ${code(`${c.from.node}.${c.from.port}`)} → ${code(`${c.to.node}.${c.to.port}`)}`);
  const hasTarget = new Set(definition.connections.map((c) => c.from.node));
  const sinks = definition.nodes.filter((n) => !hasTarget.has(n.id)).map((n) => code(n.id));
  if (sinks.length) out.push("", `The execution's outputs are those of ${sinks.join(", ")} (unless an output.respond node sets them).`);
  out.push("");

  out.push("## Error handling", "");
  const routed = definition.nodes.filter((n) => n.on_error === "route");
  const retried = definition.nodes.filter((n) => n.retry && n.retry.max_attempts > 1);
  out.push(routed.length ? `Errors routed to their error port: ${routed.map((n) => code(n.id)).join(", ")}.` : "No node routes its errors; a failing node stops the execution unless its on_error is continue.");
  if (retried.length) out.push(`Retried on failure: ${retried.map((n) => `${code(n.id)} (${n.retry?.max_attempts} attempts)`).join(", ")}.`);
  const continued = definition.nodes.filter((n) => n.on_error === "continue");
  if (continued.length) out.push(`Skipped on failure: ${continued.map((n) => code(n.id)).join(", ")}.`);
  out.push("");
  return out.join("\n");
}
