// Which tools exist for an organization (built-in and custom) and the tool set
// one agent may call: only its assigned tools, each call audited as an
// AuditEvent naming the agent.
import { notFound, validationFailed } from "../../../platform/errors";
import type { AgentServices, CustomTool } from "../services";
import { builtinTools } from "./builtin";
import type { AgentTool } from "./types";

export interface AssignedTool {
  name: string;
  kind: "built-in" | "custom";
  id?: string;
  description: string;
  /** False for a built-in tool whose module is absent, or a custom tool that was deleted. */
  available: boolean;
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

/** A tool by name (custom tools also by id): a built-in, `available` only with its module, or one of the org's custom tools. */
async function lookupTool(nameOrId: string, services: AgentServices): Promise<AssignedTool | undefined> {
  const builtin = builtinTools(services).find((t) => t.name === nameOrId);
  if (builtin) return { name: builtin.name, kind: "built-in", description: builtin.description, available: true };
  if (isBuiltinTool(nameOrId)) return { name: nameOrId, kind: "built-in", description: "", available: false };
  const custom = await services.customTool(nameOrId);
  return custom ? { name: custom.name, kind: "custom", id: custom.id, description: custom.description, available: true } : undefined;
}

/**
 * The tools a caller asks to give an agent, by canonical name (`at(i)`: where the i-th is in the
 * body); 400 naming every one that exists nowhere, so a typo never becomes a silent no-op.
 */
export async function knownTools(requested: string[], services: AgentServices, at = (i: number) => `tools.${i}`): Promise<AssignedTool[]> {
  const found = await Promise.all(requested.map((name) => lookupTool(name, services)));
  const unknown = requested.flatMap((name, i) => (found[i] ? [] : [{ name, path: at(i) }]));
  if (unknown.length) {
    throw validationFailed(
      `Unknown tools: ${unknown.map((u) => u.name).join(", ")} (neither a built-in tool nor a custom tool of this organization)`,
      unknown.map((u) => ({ path: u.path, message: `No tool named ${u.name}` })),
    );
  }
  return found as AssignedTool[];
}

/** Canonical, distinct names of the requested tools; 400 when any is unknown. */
export async function knownToolNames(requested: string[], services: AgentServices): Promise<string[]> {
  return [...new Set((await knownTools(requested, services)).map((t) => t.name))];
}

/** Resolves what a caller asks to assign to a canonical tool; 400 when unknown, 404 when its module is absent. */
export async function resolveAssignable(nameOrId: string, services: AgentServices): Promise<AssignedTool> {
  const [tool] = (await knownTools([nameOrId], services, () => "tool")) as [AssignedTool];
  if (!tool.available) throw notFound(`The built-in tool ${tool.name} needs a module this deployment lacks`, "TOOL_NOT_FOUND");
  return tool;
}

/** Describes assigned tool names for listing; custom tools that vanished are reported as such. */
export async function describeTools(names: string[], services: AgentServices): Promise<AssignedTool[]> {
  return Promise.all(
    names.map(
      async (name) => (await lookupTool(name, services).catch(() => undefined)) ?? { name, kind: "custom" as const, description: "", available: false },
    ),
  );
}
