// Which rate-limit buckets a request counts against (spec section 8).
import type { BucketRequest } from "../org-gate";
import { actorId, type Principal } from "../../../platform/principal";
import type { Limits } from "./config";

const MINUTE = 60;

/** Per-user buckets by route, counted per actor: the person when the principal names one, else the credential (actorId). */
const USER_BUCKETS: { pattern: RegExp; bucket: string; limit: (l: Limits) => number }[] = [
  {
    pattern: /^POST \/api\/agents\/[^/]+\/(?:chat|conversations\/[^/]+\/messages)$/,
    bucket: "agent-chat",
    limit: (l) => l.agentChatPerMinute,
  },
  { pattern: /^(?:GET|POST) \/api\/copilot\//, bucket: "copilot", limit: (l) => l.copilotPerMinute },
];

/** The organization's own bucket, which every request it authenticates counts in. */
export const orgBucket = (limits: Limits): BucketRequest => ({ name: "api", limit: limits.apiPerMinute, windowSeconds: MINUTE });

export function bucketsFor(method: string, path: string, principal: Principal, limits: Limits): BucketRequest[] {
  const buckets: BucketRequest[] = [orgBucket(limits)];
  const route = `${method} ${path}`;
  for (const b of USER_BUCKETS) {
    if (b.pattern.test(route)) {
      buckets.push({ name: `${b.bucket}:${actorId(principal)}`, limit: b.limit(limits), windowSeconds: MINUTE });
    }
  }
  return buckets;
}

/** The buckets a principal's usage report reads: the org's API window and the actor's own per-route windows. */
export function usageBuckets(principal: Principal, limits: Limits): (BucketRequest & { id: "api" | "agent-chat" | "copilot" })[] {
  return [
    { id: "api", name: "api", limit: limits.apiPerMinute, windowSeconds: MINUTE },
    ...USER_BUCKETS.map((b) => ({ id: b.bucket as "agent-chat" | "copilot", name: `${b.bucket}:${actorId(principal)}`, limit: b.limit(limits), windowSeconds: MINUTE })),
  ];
}
