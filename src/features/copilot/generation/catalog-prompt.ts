// The node catalog as the model sees it: every node type with its ports and the JSON
// Schema of its configuration, so generated pipelines name real types, ports and fields.
import { configJsonSchema, type NodeRegistry } from "../../pipelines";

export function catalogPrompt(registry: NodeRegistry): string {
  return registry
    .all()
    .map((n) => {
      const ports = (ps: { name: string; type: string }[]) => ps.map((p) => `${p.name}:${p.type}`).join(", ") || "none";
      const schema = JSON.stringify(configJsonSchema(n), (k, v) => (k === "$schema" || k === "additionalProperties" ? undefined : v));
      return `- ${n.id} (${n.category}${n.trigger ? `, ${n.trigger.kind} trigger` : ""}): ${n.description}\n  inputs: ${ports(n.inputs)}; outputs: ${ports(n.outputs)} (+ error:json when on_error is "route")\n  config schema: ${schema}\n  example config: ${JSON.stringify(n.documentation.example.config)}`;
    })
    .join("\n");
}

export const DEFINITION_RULES = `A pipeline definition is JSON: {"name": string, "nodes": [{"id", "type", "config", "on_error"?: "stop"|"continue"|"route", "retry"?: {"max_attempts","backoff_ms","backoff_factor"}, "timeout_ms"?}], "connections": [{"from": {"node", "port"}, "to": {"node", "port"}}]}.
Rules the service enforces: node ids match [A-Za-z0-9_.-]{1,64} and are unique; every type is one of the catalog's ids; a connection leaves an output port of its source and enters an input port of its target, with compatible port types; no cycles; at least one trigger node, and every node reachable from a trigger; each config matches its node's schema exactly (no extra fields); connecting a node's "error" port needs on_error "route".
Good practice the copilot checks: configure every required field with real values (no placeholders), route errors of nodes that call other systems, connect every output port you rely on.`;
