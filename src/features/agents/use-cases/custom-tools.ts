// Custom tools agents can be given: CRUD with the implementation checked against the
// org (its pipeline or connector must exist), and a direct invocation for testing.
import type { OrgContext } from "../../../platform/org-context";
import { validationFailed } from "../../../platform/errors";
import type { ToolInput } from "../tools/custom/definition";
import { implementationErrors, invokeTool } from "../tools/custom/invoke";
import { ToolStore } from "../tools/custom/store";
import type { ToolRow } from "../tools/custom/tables";
import type { Principal } from "../../tenancy";

async function checked(ctx: OrgContext, body: ToolInput): Promise<ToolInput> {
  const errors = await implementationErrors(ctx, body.implementation);
  if (errors.length) throw validationFailed("Invalid tool", errors);
  return body;
}

export function listTools(ctx: OrgContext, limit: number, offset: number): Promise<{ rows: ToolRow[]; total: number }> {
  const { db, orgId } = ctx;
  return new ToolStore(db).list(orgId, limit, offset);
}

export async function createTool(ctx: OrgContext, body: ToolInput): Promise<ToolRow> {
  const { db, orgId } = ctx;
  return new ToolStore(db).create(orgId, await checked(ctx, body));
}

export function getTool(ctx: OrgContext, id: string): Promise<ToolRow> {
  const { db, orgId } = ctx;
  return new ToolStore(db).get(orgId, id);
}

export async function updateTool(ctx: OrgContext, id: string, body: ToolInput): Promise<ToolRow> {
  const { db, orgId } = ctx;
  return new ToolStore(db).update(orgId, id, await checked(ctx, body));
}

export function deleteTool(ctx: OrgContext, id: string): Promise<void> {
  const { db, orgId } = ctx;
  return new ToolStore(db).delete(orgId, id);
}

/** Calls the tool with `args` as an agent would; pipeline tools count against the org's concurrent executions. */
export async function invokeToolById(ctx: OrgContext, principal: Principal, id: string, args: Record<string, unknown>, concurrencyLimit: number) {
  const { db, orgId } = ctx;
  return invokeTool(ctx, principal, await new ToolStore(db).get(orgId, id), args, concurrencyLimit);
}
