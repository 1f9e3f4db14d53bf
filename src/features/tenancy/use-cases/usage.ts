// What the calling organization uses now, from the OrgGate's own counters (the same ones the
// rate limiter and the concurrency caps decide by): requests granted in the current one-minute
// window against the per-minute limit, and the execution and export slots held against their caps.
import type { OrgContext } from "../../../platform/org-context";
import type { Principal } from "../auth/permissions";
import { usageBuckets } from "../limits/buckets";
import type { Limits } from "../limits/config";
import type { SlotKind } from "../limits/gate";

const KINDS: SlotKind[] = ["executions", "exports"];

export interface Usage {
  window: { seconds: number; resets_at: string };
  requests: { used: number; limit: number };
  agent_chat: { used: number; limit: number };
  copilot: { used: number; limit: number };
  executions: { running: number; limit: number };
  exports: { running: number; limit: number };
}

export async function organizationUsage(ctx: OrgContext, principal: Principal, limits: Limits, nowMs = Date.now()): Promise<Usage> {
  const buckets = usageBuckets(principal, limits);
  const { windows, slots } = await ctx.gate().usage(buckets, KINDS, nowMs);
  const used = (id: string) => {
    const i = buckets.findIndex((b) => b.id === id);
    return { used: windows[i]?.used ?? 0, limit: buckets[i]?.limit ?? 0 };
  };
  const running = (kind: SlotKind) => slots.find((s) => s.kind === kind)?.inUse ?? 0;
  return {
    window: { seconds: buckets[0]!.windowSeconds, resets_at: new Date((windows[0]?.reset ?? nowMs / 1000) * 1000).toISOString() },
    requests: used("api"),
    agent_chat: used("agent-chat"),
    copilot: used("copilot"),
    executions: { running: running("executions"), limit: limits.concurrentExecutions },
    exports: { running: running("exports"), limit: limits.concurrentExports },
  };
}
