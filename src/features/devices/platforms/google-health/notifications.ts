// Google Health API webhooks: what Google documents, and only that (docs/wearables.md, "Google
// Health API"). Documented: the subscriber verification (two POSTs `{"type":"verification"}`,
// 201 for the one whose `Authorization` is the configured `endpointAuthorization.secret`, 401
// without), that same `Authorization` on every notification, and an `X-HEALTHAPI-SIGNATURE`
// ECDSA P-256 signature of the JSON payload. Not documented: the notification body and where
// Google's public key is. So the Authorization value is always required (constant time), the
// signature is checked when the org configures the public key, and a notification is read
// without field names: the linked users it names by their Google Health user id (`users/{id}`
// or the bare id) get a bounded incremental sync of the data types it names (else all of ours).
import type { PlatformCredentials } from "../../platform-adapter";
import type { PlatformEvent, Verification, WebhookDelivery } from "../platform";
import { constantTimeEqual } from "../webhooks/signature";
import { verifyEcdsaP256 } from "./ecdsa";

const SIGNATURE = "x-healthapi-signature";
/** Identity.healthUserId: 1-63 letters, digits and hyphens (discovery document). */
const USER_ID = /^[A-Za-z0-9-]{1,63}$/;
const RESOURCE_USER = /^users\/([A-Za-z0-9-]{1,63})(?:\/|$)/;
const MAX_STRINGS = 200;
/** SubscriberConfig.dataTypes: the types Google notifies about (developers.google.com/health/webhooks). */
export const NOTIFIED_DATA_TYPES: readonly string[] = ["altitude", "distance", "floors", "sleep", "steps", "weight"];
const MAX_USERS = 20;

const configuredAuthorization = (c: PlatformCredentials) => c.extra?.webhook_authorization ?? "";

function authorized(delivery: WebhookDelivery, credentials: PlatformCredentials): Verification {
  const expected = configuredAuthorization(credentials);
  const given = delivery.headers.get("authorization");
  if (!expected) return { ok: false, reason: "no webhook_authorization configured" };
  if (given === null) return { ok: false, reason: "missing Authorization" };
  return constantTimeEqual(given, expected) ? { ok: true } : { ok: false, reason: "Authorization mismatch" };
}

function isVerification(body: string): boolean {
  try {
    const parsed = JSON.parse(body) as unknown;
    return !!parsed && typeof parsed === "object" && (parsed as Record<string, unknown>).type === "verification" && Object.keys(parsed).length === 1;
  } catch {
    return false;
  }
}

/** The verification POST with the configured Authorization → exactly 201; without (or wrong) it falls through to `verify` → 401. */
export async function googleHandshake(delivery: WebhookDelivery, credentials: PlatformCredentials): Promise<Response | undefined> {
  if (delivery.method !== "POST" || !isVerification(delivery.body)) return undefined;
  return authorized(delivery, credentials).ok ? new Response(null, { status: 201 }) : undefined;
}

export async function googleVerify(delivery: WebhookDelivery, credentials: PlatformCredentials): Promise<Verification> {
  const auth = authorized(delivery, credentials);
  if (!auth.ok) return auth;
  const key = credentials.extra?.webhook_public_key;
  if (!key) return auth;
  const signature = delivery.headers.get(SIGNATURE);
  if (!signature) return { ok: false, reason: `missing ${SIGNATURE}` };
  return (await verifyEcdsaP256(key, signature, delivery.body)) ? { ok: true } : { ok: false, reason: "X-HEALTHAPI-SIGNATURE does not verify with the configured public key" };
}

/** Every string in a JSON value (bounded), without relying on any field name. */
function stringsOf(value: unknown, out: string[] = [], depth = 0): string[] {
  if (out.length >= MAX_STRINGS || depth > 6) return out;
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) stringsOf(v, out, depth + 1);
  else if (value && typeof value === "object") for (const v of Object.values(value)) stringsOf(v, out, depth + 1);
  return out;
}

/**
 * The events a notification implies: for each Google Health user id it names, one incremental
 * sync per data type it names (kebab-case ids or their snake_case filter names, or a
 * `users/…/dataTypes/{type}` resource name); the types Google notifies about when it names none. Only ids
 * of this org's active links lead anywhere (the consumer looks them up).
 */
export function googleEvents(body: unknown, dataTypes: readonly string[]): PlatformEvent[] {
  const strings = stringsOf(body);
  // Resource names (`users/{id}`) first: they are ids for certain, bare strings only maybe.
  const named = new Set<string>();
  const bare = new Set<string>();
  const types = new Set<string>();
  for (const s of strings) {
    const kebab = s.replace(/_/g, "-");
    if (dataTypes.includes(kebab)) types.add(kebab);
    const typeInName = /\/dataTypes\/([a-z0-9-]+)/.exec(s)?.[1];
    if (typeInName && dataTypes.includes(typeInName)) types.add(typeInName);
    const resourceUser = RESOURCE_USER.exec(s)?.[1];
    if (resourceUser && resourceUser !== "me") named.add(resourceUser);
    else if (USER_ID.test(s) && !dataTypes.includes(kebab)) bare.add(s);
  }
  // Naming none: the types Google sends notifications for (its webhooks guide), those we read.
  const wanted = types.size ? [...types] : NOTIFIED_DATA_TYPES.filter((t) => dataTypes.includes(t));
  const users = [...new Set([...named, ...bare])].slice(0, MAX_USERS);
  return users.flatMap((platformUserId) => wanted.map((dataType) => ({ platformUserId, action: "upsert" as const, dataType })));
}
