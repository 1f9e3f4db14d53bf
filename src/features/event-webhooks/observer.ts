// What the destination queue tells customer webhooks after each attempt (the composition root
// passes `observeWebhookAttempt` to the queue as the "webhook" owner's observer). The disable
// rule: an endpoint answering 410 Gone is disabled at once; otherwise one that keeps failing with
// no success for DISABLE_AFTER_MS (5 days, counted from its first failure after its last success,
// as Svix does) is disabled. A success resets the count. Disabling pauses the endpoint's
// destination (queued messages wait; re-enabling resumes them), sets disabled_reason and
// disabled_at, and raises webhook.endpoint.disabled to the org's other endpoints. Never throws.
import { logger } from "../../platform/observability/log";
import type { OrgContext } from "../../platform/org-context";
import type { AttemptObservation } from "../destinations";
import type { DeliveryPort } from "./delivery";
import { forgetEndpoints } from "./endpoint-cache";
import { publishEvents } from "./publish";
import { unsealSecrets, validSecrets } from "./secrets";
import { WebhookStore } from "./store";

export const DISABLE_AFTER_MS = 5 * 86_400_000;

export type DisabledReason = "gone" | "failing";

/** What to do after an attempt: pure, so the rule is testable alone. */
export function verdict(obs: Pick<AttemptObservation, "attempt">, failingSince: string | null, now: number): { disable?: DisabledReason; failingSince: string | null } {
  const result = obs.attempt.result;
  if (result.ok) return { failingSince: null };
  if (result.failure?.class === "gone" || result.status === 410) return { disable: "gone", failingSince: failingSince ?? obs.attempt.started_at };
  const since = failingSince ?? obs.attempt.started_at;
  return now - Date.parse(since) >= DISABLE_AFTER_MS ? { disable: "failing", failingSince: since } : { failingSince: since };
}

/** Disables the endpoint (if enabled), pauses its destination and tells the org's other endpoints. */
export async function disableEndpoint(ctx: OrgContext, port: DeliveryPort, endpointId: string, reason: DisabledReason, detail: string): Promise<boolean> {
  const store = new WebhookStore(ctx.db);
  const at = new Date().toISOString();
  if (!(await store.disable(ctx.orgId, endpointId, reason, at))) return false;
  forgetEndpoints(ctx);
  const row = await store.get(ctx.orgId, endpointId);
  if (!row) return false;
  const secrets = validSecrets(await unsealSecrets(ctx.env, ctx.orgId, row.id, row.secretsEnc)).map((s) => s.secret);
  await port.save(ctx, row.id, { url: row.url, signing_secrets: secrets, state: "paused" });
  logger(ctx.env).warn("webhook endpoint disabled", { org: ctx.orgId, endpoint_id: row.id, reason, detail });
  await publishEvents(
    ctx,
    [{ type: "webhook.endpoint.disabled", id: `webhook.endpoint.disabled.${row.id}.${at}`, occurred_at: at, data: { endpoint_id: row.id, url: row.url, disabled_reason: reason, disabled_at: at, detail } }],
    port,
    row.id,
  );
  return true;
}

export async function observeAttempt(ctx: OrgContext, obs: AttemptObservation, port: DeliveryPort, now = Date.now()): Promise<void> {
  const endpointId = obs.destination.owner?.kind === "webhook" ? obs.destination.owner.id : undefined;
  if (!endpointId) return;
  try {
    const store = new WebhookStore(ctx.db);
    const row = await store.get(ctx.orgId, endpointId);
    if (!row?.enabled) return;
    const next = verdict(obs, row.failingSince, now);
    if (next.disable) {
      const r = obs.attempt.result;
      const detail = `${r.status ? `HTTP ${r.status}` : (r.failure?.class ?? "failure")}${r.failure?.message ? `: ${r.failure.message}` : ""}`;
      await disableEndpoint(ctx, port, endpointId, next.disable, detail);
    } else if (next.failingSince !== row.failingSince) {
      await store.update(ctx.orgId, endpointId, { failingSince: next.failingSince });
    }
    // A rotation's overlap ended: the destination stops signing with the old secret.
    const secrets = await unsealSecrets(ctx.env, ctx.orgId, row.id, row.secretsEnc);
    if (!next.disable && validSecrets(secrets, now).length !== obs.destination.signing_secrets.length) {
      await port.save(ctx, row.id, { url: row.url, signing_secrets: validSecrets(secrets, now).map((s) => s.secret), state: "active" });
    }
  } catch (e) {
    logger(ctx.env).warn("webhook attempt observer failed", { org: ctx.orgId, endpoint_id: endpointId, error_message: e instanceof Error ? e.message : String(e) });
  }
}
