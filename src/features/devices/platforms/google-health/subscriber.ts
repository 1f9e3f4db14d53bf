// The org's Google Health subscriber (discovery document rev. 20260527, projects.subscribers:
// create / list / patch / delete, each answering a long-running Operation except list), called
// with the org's service account (service-account.ts), never a user's token. One subscriber per
// org, with a stable id derived from the org, pointing at the org's webhook endpoint with the
// `webhook_authorization` secret Google must present there. Policy AUTOMATIC by default
// (notifications for every user who granted this client consent); with the setting
// `subscription_policy: MANUAL` Fitbit's semantics instead: one subscription per linked user,
// created on link and deleted on unlink (projects.subscribers.subscriptions). Google verifies the
// endpoint during create and patch (the handshake in notifications.ts).
import { type PlatformCall, type PlatformCredentials, PlatformError } from "../../platform-adapter";
import { badRequest } from "../../../../platform/errors";
import { type SubscriberSpec, type SubscriberState, type SubscriberTarget, urlOf } from "../platform";
import { failureOf, vendorCall, vendorJson, withQuery } from "../vendor-http";
import { NOTIFIED_DATA_TYPES } from "./notifications";
import { parseServiceAccountKey, serviceAccountToken } from "./service-account";

const API = "https://health.googleapis.com";
const TOKEN_URL = "https://oauth2.googleapis.com/token";

type Doc = Readonly<Record<string, unknown>>;
const obj = (v: unknown): Doc => (v && typeof v === "object" && !Array.isArray(v) ? (v as Doc) : {});

const POLICIES = ["AUTOMATIC", "MANUAL"];

async function hex32(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return [...digest.slice(0, 16)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Subscriber ids are 4-36 of [a-z0-9-], starting with a letter: "org-" and 32 hex digits of the org id's SHA-256. */
export const subscriberIdOf = async (orgId: string): Promise<string> => `org-${await hex32(orgId)}`;
/** A user's subscription id under the org's subscriber: "u-" and 32 hex digits of the Google Health user id's SHA-256. */
const subscriptionIdOf = async (healthUserId: string): Promise<string> => `u-${await hex32(healthUserId)}`;

/** The `subscription_policy` setting: AUTOMATIC (default) or MANUAL (a subscription per linked user). */
function policyOf(c: PlatformCredentials): string {
  const policy = c.extra?.subscription_policy ?? "AUTOMATIC";
  if (!POLICIES.includes(policy)) throw badRequest("Unknown subscription policy", [{ path: "settings.subscription_policy", message: `is ${policy}; allowed: ${POLICIES.join(", ")}` }]);
  return policy;
}
const manual = (c: PlatformCredentials) => c.extra?.subscription_policy === "MANUAL";

interface Session {
  readonly call: PlatformCall;
  readonly api: string;
  readonly project: string;
  readonly secret: string;
}

/** The service account's token on the call, the project and the endpoint secret, or a clear `invalid` naming what is missing. */
async function session(call: PlatformCall): Promise<Session> {
  const c: PlatformCredentials = call.credentials;
  // What the administrator has not configured is a 400 naming the field, before any call to Google.
  const key = parseServiceAccountKey(c.extra?.service_account_key);
  if (!key) throw badRequest("No usable service account", [{ path: "credentials.service_account_key", message: "must be the service account's JSON key file (client_email, private_key)" }]);
  const project = c.extra?.google_project ?? key.projectId;
  if (!project) throw badRequest("No Google Cloud project", [{ path: "settings.google_project", message: "is required when the key has no project_id" }]);
  const secret = c.extra?.webhook_authorization;
  if (!secret) throw badRequest("No endpoint secret", [{ path: "credentials.webhook_authorization", message: 'is required: the whole Authorization value Google will send, e.g. "Bearer …"' }]);
  const token = await serviceAccountToken(call, key, urlOf(c, "token_url", TOKEN_URL));
  return { call: { ...call, tokens: { accessToken: token } }, api: urlOf(c, "api_base_url", API), project, secret };
}

function stateOf(subscriber: Doc, fallbackName: string): SubscriberState {
  const configs = Array.isArray(subscriber.subscriberConfigs) ? subscriber.subscriberConfigs : [];
  const dataTypes = [...new Set(configs.flatMap((cfg) => (Array.isArray(obj(cfg).dataTypes) ? (obj(cfg).dataTypes as unknown[]).filter((t): t is string => typeof t === "string") : [])))];
  const str = (k: string) => (typeof subscriber[k] === "string" ? (subscriber[k] as string) : undefined);
  const auth = obj(subscriber.endpointAuthorization);
  return {
    name: str("name") ?? fallbackName,
    state: str("state") ?? "STATE_UNSPECIFIED",
    dataTypes,
    ...(str("endpointUri") ? { endpointUri: str("endpointUri") } : {}),
    ...(typeof auth.secretSet === "boolean" ? { secretSet: auth.secretSet } : {}),
    ...(str("createTime") ? { createdAt: str("createTime") } : {}),
    ...(str("updateTime") ? { updatedAt: str("updateTime") } : {}),
  };
}

/** An Operation: its error is Google refusing (endpoint verification failed, …); not done yet is PENDING. */
function fromOperation(op: Doc, name: string, requested: Doc): SubscriberState {
  const error = obj(op.error);
  if (op.done === true && Object.keys(error).length) throw new PlatformError("invalid", `Google refused the subscriber: ${String(error.message ?? "no message")} (code ${String(error.code ?? "?")})`);
  if (op.done === true) return stateOf(obj(op.response), name);
  return { ...stateOf(requested, name), state: "PENDING" };
}

async function find(s: Session, name: string): Promise<Doc | undefined> {
  let pageToken: string | undefined;
  for (let page = 0; page < 50; page++) {
    const url = withQuery(`${s.api}/v4/projects/${encodeURIComponent(s.project)}/subscribers`, { pageSize: 1000, pageToken });
    const list = await vendorJson<{ subscribers?: unknown[]; nextPageToken?: string }>(s.call, url);
    const found = (list.subscribers ?? []).map(obj).find((sub) => sub.name === name);
    if (found) return found;
    pageToken = list.nextPageToken;
    if (!pageToken) return undefined;
  }
  return undefined;
}

const nameOf = async (s: Session, orgId: string) => `projects/${s.project}/subscribers/${await subscriberIdOf(orgId)}`;

export const googleSubscriber: SubscriberSpec = {
  async put(call, target: SubscriberTarget) {
    const s = await session(call);
    const name = await nameOf(s, target.orgId);
    const subscriber = {
      endpointUri: target.endpointUri,
      subscriberConfigs: [{ dataTypes: [...NOTIFIED_DATA_TYPES], subscriptionCreatePolicy: policyOf(call.credentials) }],
      endpointAuthorization: { secret: s.secret },
    };
    const request = { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(subscriber) };
    const existing = await find(s, name);
    if (!existing) {
      const url = withQuery(`${s.api}/v4/projects/${encodeURIComponent(s.project)}/subscribers`, { subscriberId: name.split("/").pop() });
      return { ...fromOperation(await vendorJson<Doc>(s.call, url, request), name, { ...subscriber, name }), created: true };
    }
    const url = withQuery(`${s.api}/v4/${name}`, { updateMask: "endpointUri,subscriberConfigs,endpointAuthorization" });
    return { ...fromOperation(await vendorJson<Doc>(s.call, url, { ...request, method: "PATCH" }), name, { ...existing, ...subscriber }), created: false };
  },
  async get(call, target) {
    const s = await session(call);
    const name = await nameOf(s, target.orgId);
    const found = await find(s, name);
    return found && stateOf(found, name);
  },
  async remove(call, target) {
    const s = await session(call);
    const name = await nameOf(s, target.orgId);
    if (!(await find(s, name))) return false;
    const op = await vendorJson<Doc>(s.call, `${s.api}/v4/${name}`, { method: "DELETE" });
    if (op.done === true && Object.keys(obj(op.error)).length) throw new PlatformError("invalid", `Google refused to delete the subscriber: ${String(obj(op.error).message ?? "")}`);
    return true;
  },
};

/**
 * MANUAL policy only (else nothing): subscribe a newly linked user to the notified types, as
 * Fitbit's per-user subscriptions did. Already subscribed (409) is fine: a re-link.
 */
export async function subscribeUser(call: PlatformCall, orgId: string, healthUserId: string | undefined): Promise<void> {
  if (!manual(call.credentials) || !healthUserId) return;
  const s = await session(call);
  const parent = await nameOf(s, orgId);
  const url = withQuery(`${s.api}/v4/${parent}/subscriptions`, { subscriptionId: await subscriptionIdOf(healthUserId) });
  const body = { user: `users/${healthUserId}`, dataTypes: NOTIFIED_DATA_TYPES.map((t) => `users/${healthUserId}/dataTypes/${t}`) };
  const res = await vendorCall(s.call, url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!res.ok && res.status !== 409) throw await failureOf(res, `POST ${new URL(url).pathname}`);
}

/** MANUAL policy only: the user's subscription goes with the link (already gone, 404, is fine). */
export async function unsubscribeUser(call: PlatformCall, orgId: string, healthUserId: string | undefined): Promise<void> {
  if (!manual(call.credentials) || !healthUserId) return;
  const s = await session(call);
  const url = `${s.api}/v4/${await nameOf(s, orgId)}/subscriptions/${await subscriptionIdOf(healthUserId)}`;
  const res = await vendorCall(s.call, url, { method: "DELETE" });
  if (!res.ok && res.status !== 404) throw await failureOf(res, `DELETE ${new URL(url).pathname}`);
}
