// Effective limits of an organization: spec defaults, overridden by environment
// variables (deployment-wide), overridden by the organization's own row.
import { z } from "zod";
import { type SettingName, settingsOf } from "../../../platform/settings";
import { DEFAULT_EXPRESSION_STEPS, MAX_EXPRESSION_STEPS } from "../../../platform/step-budget";

export const limitsSchema = z
  .object({
    apiPerMinute: z.number().int().positive(),
    agentChatPerMinute: z.number().int().positive(),
    copilotPerMinute: z.number().int().positive(),
    concurrentExecutions: z.number().int().positive(),
    concurrentExports: z.number().int().positive(),
    /** Evaluation steps one pipeline node's expressions (JSONata, FHIRPath) may take together (platform/step-budget.ts). */
    expressionSteps: z.number().int().positive().max(MAX_EXPRESSION_STEPS),
  })
  .strict();

export type Limits = z.infer<typeof limitsSchema>;
export const limitOverridesSchema = limitsSchema.partial();
export type LimitOverrides = z.infer<typeof limitOverridesSchema>;

/** Spec section 8. */
export const DEFAULT_LIMITS: Limits = {
  apiPerMinute: 1000,
  agentChatPerMinute: 60,
  copilotPerMinute: 30,
  concurrentExecutions: 100,
  concurrentExports: 5,
  expressionSteps: DEFAULT_EXPRESSION_STEPS,
};

const ENV_VARS: Record<keyof Limits, SettingName> = {
  apiPerMinute: "LIMIT_API_PER_MINUTE",
  agentChatPerMinute: "LIMIT_AGENT_CHAT_PER_MINUTE",
  copilotPerMinute: "LIMIT_COPILOT_PER_MINUTE",
  concurrentExecutions: "LIMIT_CONCURRENT_EXECUTIONS",
  concurrentExports: "LIMIT_CONCURRENT_EXPORTS",
  expressionSteps: "LIMIT_EXPRESSION_STEPS",
};

function positiveInt(raw: string | undefined): number | undefined {
  const n = typeof raw === "string" ? Number(raw) : Number.NaN;
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/** Requests per client IP per minute that no organization's bucket counts (limits/client-windows.ts). */
export const DEFAULT_PUBLIC_PER_MINUTE = 300;

export function publicPerMinute(vars: object): number {
  return positiveInt(settingsOf(vars).LIMIT_PUBLIC_PER_MINUTE) ?? DEFAULT_PUBLIC_PER_MINUTE;
}

/**
 * Verified wearable webhook deliveries per organization and platform per minute: generous, since a
 * vendor pushes every user's data as it syncs, in bursts (counted by `countWebhookDelivery`, middleware/rate-limit.ts).
 */
export const DEFAULT_WEBHOOK_PER_MINUTE = 6000;

export function webhookPerMinute(vars: object): number {
  return positiveInt(settingsOf(vars).LIMIT_WEBHOOK_PER_MINUTE) ?? DEFAULT_WEBHOOK_PER_MINUTE;
}

/** `vars` is the Worker env (or any map of its string variables). */
export function resolveLimits(vars: object, orgOverrides: unknown): Limits {
  const settings = settingsOf(vars);
  const limits = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(ENV_VARS) as (keyof Limits)[]) limits[key] = positiveInt(settings[ENV_VARS[key]]) ?? limits[key];
  limits.expressionSteps = Math.min(limits.expressionSteps, MAX_EXPRESSION_STEPS);
  // A malformed override row must not take the org down: ignore what does not parse.
  const parsed = limitOverridesSchema.safeParse(orgOverrides ?? {});
  if (parsed.success) Object.assign(limits, parsed.data);
  return limits;
}
