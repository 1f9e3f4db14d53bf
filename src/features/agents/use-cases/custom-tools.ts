// Custom tools agents can be given: CRUD with the implementation checked against the
// org (its pipeline or connector must exist), and a direct invocation for testing.
import type { Database } from "../../../platform/db/client";
import type { Env } from "../../../platform/env";
import { validationFailed } from "../../../platform/errors";
import { invokeTool } from "../../../service-wiring";
import type { ToolInput } from "../tools/custom/definition";
import { implementationErrors } from "../tools/custom/invoke";
import { ToolStore } from "../tools/custom/store";
import type { ToolRow } from "../tools/custom/tables";

async function checked(env: Env, orgId: string, body: ToolInput): Promise<ToolInput> {
  const errors = await implementationErrors(env, orgId, body.implementation);
  if (errors.length) throw validationFailed("Invalid tool", errors);
  return body;
}

export function listTools(db: Database, orgId: string, limit: number, offset: number): Promise<{ rows: ToolRow[]; total: number }> {
  return new ToolStore(db).list(orgId, limit, offset);
}

export async function createTool(db: Database, env: Env, orgId: string, body: ToolInput): Promise<ToolRow> {
  return new ToolStore(db).create(orgId, await checked(env, orgId, body));
}

export function getTool(db: Database, orgId: string, id: string): Promise<ToolRow> {
  return new ToolStore(db).get(orgId, id);
}

export async function updateTool(db: Database, env: Env, orgId: string, id: string, body: ToolInput): Promise<ToolRow> {
  return new ToolStore(db).update(orgId, id, await checked(env, orgId, body));
}

export function deleteTool(db: Database, orgId: string, id: string): Promise<void> {
  return new ToolStore(db).delete(orgId, id);
}

/** Calls the tool with `args` as an agent would; pipeline tools count against the org's concurrent executions. */
export async function invokeToolById(db: Database, env: Env, orgId: string, id: string, args: Record<string, unknown>, concurrencyLimit: number) {
  return invokeTool(env, orgId, await new ToolStore(db).get(orgId, id), args, concurrencyLimit);
}
