// Which tools exist for an organization (built-in and custom) and the tool set
// one agent may call: only its assigned tools, each call audited as an
// AuditEvent naming the agent.
import { notFound } from "../../errors";
import type { AgentServices, CustomTool } from "../services";
import { builtinTools } from "./builtin";
import type { AgentTool } from "./types";

export interface ToolInfo {
  name: string;
  kind: "built-in" | "custom";
  id?: string;
  description: string;
}

export const BUILTIN_TOOL_NAMES = [
  "fhir_search",
  "fhir_read",
  "patient_summary",
  "vitals_query",
  "run_pipeline",
  "terminology_lookup",
] as const;

export function isBuiltinTool(name: string): boolean {
  return (BUILTIN_TOOL_NAMES as readonly string[]).includes(name);
}

export interface Actor {
  agentId: string;
  agentName: string;
  keyId: string;
}

function fromCustom(t: CustomTool): AgentTool & { entity(args: unknown): string | undefined } {
  return {
    name: t.name,
    description: t.description,
    input: { jsonSchema: t.parameters },
    entity: () => `Tool/${t.id}`,
    execute: (args) => t.execute(args),
  };
}

function audited(t: AgentTool & { entity(args: unknown): string | undefined }, services: AgentServices, actor: Actor): AgentTool {
  return {
    ...t,
    execute: async (args, ctx) => {
      const base = { ...actor, tool: t.name, entity: t.entity(args) };
      let result: unknown;
      try {
        result = await t.execute(args, ctx);
      } catch (err) {
        const detail = err instanceof Error ? err.message : String(err);
        await services.audit({ ...base, outcome: "failure", detail }).catch(() => undefined);
        throw err;
      }
      // No audit record, no data: a result the log cannot account for is withheld.
      try {
        await services.audit({ ...base, outcome: "success" });
      } catch (err) {
        throw new Error(`The result was withheld because the audit log could not be written: ${err instanceof Error ? err.message : String(err)}`);
      }
      return result;
    },
  };
}

/** The callable tools of an agent, in assignment order; unknown names are skipped. */
export async function agentTools(assigned: string[], services: AgentServices, actor: Actor): Promise<AgentTool[]> {
  const builtins = new Map(builtinTools(services).map((t) => [t.name, t]));
  const out: AgentTool[] = [];
  for (const name of assigned) {
    const builtin = builtins.get(name);
    if (builtin) {
      out.push(audited(builtin, services, actor));
      continue;
    }
    if (isBuiltinTool(name)) continue; // e.g. vitals_query without the devices module
    const custom = await services.customTool(name);
    if (custom) out.push(audited(fromCustom(custom), services, actor));
  }
  return out;
}

/** Resolves what a caller asks to assign to a canonical tool name; 404 when unknown. */
export async function resolveAssignable(nameOrId: string, services: AgentServices): Promise<ToolInfo> {
  const builtin = builtinTools(services).find((t) => t.name === nameOrId);
  if (builtin) return { name: builtin.name, kind: "built-in", description: builtin.description };
  if (isBuiltinTool(nameOrId)) {
    throw notFound(`The built-in tool ${nameOrId} needs a module this deployment lacks`, "TOOL_NOT_FOUND");
  }
  const custom = await services.customTool(nameOrId);
  if (!custom) throw notFound(`No tool named ${nameOrId} in this organization`, "TOOL_NOT_FOUND");
  return { name: custom.name, kind: "custom", id: custom.id, description: custom.description };
}

/** Describes assigned tool names for listing; custom tools that vanished are reported as such. */
export async function describeTools(names: string[], services: AgentServices): Promise<(ToolInfo & { available: boolean })[]> {
  const builtins = new Map(builtinTools(services).map((t) => [t.name, t]));
  return Promise.all(
    names.map(async (name) => {
      const b = builtins.get(name);
      if (b) return { name, kind: "built-in" as const, description: b.description, available: true };
      if (isBuiltinTool(name)) return { name, kind: "built-in" as const, description: "", available: false };
      const custom = await services.customTool(name).catch(() => undefined);
      return custom
        ? { name, kind: "custom" as const, id: custom.id, description: custom.description, available: true }
        : { name, kind: "custom" as const, description: "", available: false };
    }),
  );
}
