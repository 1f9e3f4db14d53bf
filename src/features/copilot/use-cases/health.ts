// GET /copilot/health: the deterministic endpoints always work; the model-backed ones need a
// model, which this reports (without calling it) from the org's model sources.
import type { OrgContext } from "../../../platform/org-context";
import { ApiError } from "../../../platform/errors";
import type { Principal } from "../../tenancy";
import { copilotModel } from "../generation/model";

export async function copilotHealth(ctx: OrgContext, principal: Principal) {
  let model: { available: boolean; id: string | null; reason?: string };
  try {
    model = { available: true, id: (await copilotModel(ctx, principal)).info.id };
  } catch (e) {
    if (!(e instanceof ApiError)) throw e;
    model = { available: false, id: null, reason: e.message };
  }
  return {
    status: model.available ? ("ok" as const) : ("degraded" as const),
    deterministic: { available: true as const, node_types: ctx.nodes.all().length },
    model,
  };
}
