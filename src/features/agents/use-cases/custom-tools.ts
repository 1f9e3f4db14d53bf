// Custom tools agents can be given: CRUD with the implementation checked against the
// org (its pipeline or connector must exist), and a direct invocation for testing.
import type { OrgData } from "../../../platform/org-data";
import { validationFailed } from "../../../platform/errors";
import { invokeTool } from "../../../main/wiring";
import type { ToolInput } from "../tools/custom/definition";
import { implementationErrors } from "../tools/custom/invoke";
import { ToolStore } from "../tools/custom/store";
import type { ToolRow } from "../tools/custom/tables";

async function checked(data: OrgData, orgId: string, body: ToolInput): Promise<ToolInput> {
  const errors = await implementationErrors(data, orgId, body.implementation);
  if (errors.length) throw validationFailed("Invalid tool", errors);
  return body;
}

export function listTools(data: OrgData, orgId: string, limit: number, offset: number): Promise<{ rows: ToolRow[]; total: number }> {
  const { db } = data;
  return new ToolStore(db).list(orgId, limit, offset);
}

export async function createTool(data: OrgData, orgId: string, body: ToolInput): Promise<ToolRow> {
  const { db } = data;
  return new ToolStore(db).create(orgId, await checked(data, orgId, body));
}

export function getTool(data: OrgData, orgId: string, id: string): Promise<ToolRow> {
  const { db } = data;
  return new ToolStore(db).get(orgId, id);
}

export async function updateTool(data: OrgData, orgId: string, id: string, body: ToolInput): Promise<ToolRow> {
  const { db } = data;
  return new ToolStore(db).update(orgId, id, await checked(data, orgId, body));
}

export function deleteTool(data: OrgData, orgId: string, id: string): Promise<void> {
  const { db } = data;
  return new ToolStore(db).delete(orgId, id);
}

/** Calls the tool with `args` as an agent would; pipeline tools count against the org's concurrent executions. */
export async function invokeToolById(data: OrgData, orgId: string, id: string, args: Record<string, unknown>, concurrencyLimit: number) {
  const { db } = data;
  return invokeTool(data, orgId, await new ToolStore(db).get(orgId, id), args, concurrencyLimit);
}
