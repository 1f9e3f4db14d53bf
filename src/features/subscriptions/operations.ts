// The Backport IG's operations on Subscription: $status (the subscription's SubscriptionStatus),
// $events (its numbered events replayed from the event log, as a notification Bundle), and
// $topic-list (the topics this server declares; the STU1 ballot's shape, since R4 has no
// SubscriptionTopic to search). Reads go through the caller's FHIR store, so its access applies.
import { z } from "@hono/zod-openapi";
import { badRequest } from "../../platform/errors";
import type { AnyOperation, FhirOperation, FhirService, Resource } from "../fhir";
import { IG, type PayloadContent } from "./ig";
import { type NotificationEvent, notificationBundle } from "./notification";
import { orgObject } from "../../platform/durable-objects/object-names";
import { SOCKETS_NAME } from "./sockets";
import { SubscriptionStore } from "./store";
import { type SubscriptionStatus, parseSubscription } from "./subscription";
import { TOPICS } from "./topics";

/** The most events one $events call returns. */
export const EVENTS_PAGE = 100;

async function subscriptionOf(store: FhirService, id: string) {
  // The caller's read: 404 for another org's id or one its policy withholds.
  const resource = (await store.read("Subscription", id)) as Resource & { id: string; status?: SubscriptionStatus; error?: string };
  const row = await new SubscriptionStore(store.data.d1, store.data.orgId).get(id);
  const parsed = parseSubscription(resource, id);
  return { resource, row, spec: parsed.ok ? parsed.spec : undefined };
}

const statusOperation: FhirOperation<Record<string, never>> = {
  name: "status",
  definition: IG.statusOperation,
  instantiates: IG.serverCapability,
  levels: ["instance"],
  types: ["Subscription"],
  methods: ["GET", "POST"],
  permission: "fhir:read",
  input: "none",
  parameters: z.object({}) as never,
  summary: "Subscription/{id}/$status: the subscription's status and event count (a Bundle whose first entry is a SubscriptionStatus Parameters)",
  handler: async ({ store, id }) => {
    const { resource, row, spec } = await subscriptionOf(store, id!);
    return {
      body: notificationBundle({
        baseUrl: store.baseUrl,
        subscriptionId: resource.id,
        ...(spec?.topic ? { topic: spec.topic.url } : {}),
        status: resource.status ?? "requested",
        type: "query-status",
        eventsSinceStart: row?.eventCount ?? 0,
        content: "empty",
        events: [],
        ...(resource.error ? { error: resource.error } : {}),
      }),
    };
  },
};

const count = (description: string) => z.string().regex(/^\d+$/).optional().openapi({ description });
const eventsQuery = z.object({
  eventsSinceNumber: count("The lowest event number to include (inclusive)"),
  eventsUntilNumber: count("The highest event number to include (inclusive)"),
  content: z.enum(["empty", "id-only", "full-resource"]).optional().openapi({ description: "Payload content of the answer (the subscription's by default)" }),
});

const eventsOperation: FhirOperation<z.infer<typeof eventsQuery>> = {
  name: "events",
  definition: IG.eventsOperation,
  instantiates: IG.serverCapability,
  levels: ["instance"],
  types: ["Subscription"],
  methods: ["GET", "POST"],
  permission: "fhir:read",
  input: "none",
  parameters: eventsQuery,
  summary: `Subscription/{id}/$events: its events replayed by event number (at most ${EVENTS_PAGE} a call), as a notification Bundle of type query-event`,
  handler: async ({ store, id, params }) => {
    const { resource, row, spec } = await subscriptionOf(store, id!);
    const total = row?.eventCount ?? 0;
    const since = params.eventsSinceNumber ? Number(params.eventsSinceNumber) : Math.max(1, total - EVENTS_PAGE + 1);
    const until = params.eventsUntilNumber ? Number(params.eventsUntilNumber) : total;
    if (until < since && params.eventsUntilNumber && params.eventsSinceNumber) throw badRequest(`eventsUntilNumber ${until} is below eventsSinceNumber ${since}`);
    const content: PayloadContent = params.content ?? spec?.payload ?? "id-only";
    const rows = row ? await new SubscriptionStore(store.data.d1, store.data.orgId).events(id!, since, until, EVENTS_PAGE) : [];
    const events: NotificationEvent[] = [];
    for (const r of rows) {
      let focus: Resource | undefined;
      if (content === "full-resource" && r.action !== "delete") {
        try {
          focus = await store.vread(r.focusType, r.focusId, r.focusVersion);
        } catch {
          focus = undefined; // withheld from this caller, or its version is gone: listed by id only
        }
      }
      events.push({ eventNumber: r.eventNumber, timestamp: r.occurredAt, focus: { type: r.focusType, id: r.focusId, version: r.focusVersion }, action: r.action, ...(focus ? { resource: focus } : {}) });
    }
    return {
      body: notificationBundle({ baseUrl: store.baseUrl, subscriptionId: resource.id, ...(spec?.topic ? { topic: spec.topic.url } : {}), status: resource.status ?? "requested", type: "query-event", eventsSinceStart: total, content, events }),
    };
  },
};

/** Where a client opens its websocket for `baseUrl`'s organization (routes.ts serves it). */
export const websocketUrlOf = (baseUrl: string) => `${baseUrl.replace(/^http/, "ws")}/$subscription-ws`;

const wsTokenOperation: FhirOperation<Record<string, never>> = {
  name: "get-ws-binding-token",
  definition: IG.wsTokenOperation,
  instantiates: IG.serverCapability,
  levels: ["instance"],
  types: ["Subscription"],
  methods: ["GET", "POST"],
  permission: "fhir:read",
  input: "none",
  parameters: z.object({}) as never,
  summary: "Subscription/{id}/$get-ws-binding-token: a short-lived token a websocket client sends as `bind-with-token <token>` on the websocket-url it names",
  responses: { 400: "Not a websocket Subscription", 404: "No such Subscription in this organization" },
  handler: async ({ store, env, id }) => {
    const { resource, spec } = await subscriptionOf(store, id!);
    if (spec?.channel !== "websocket") throw badRequest(`Subscription/${resource.id} does not use the websocket channel`);
    const orgId = store.data.orgId;
    const { token, expiresAt } = await orgObject(env.SUBSCRIPTION_SOCKETS, orgId, SOCKETS_NAME).issueToken(orgId, [resource.id]);
    return {
      body: {
        resourceType: "Parameters",
        parameter: [
          { name: "token", valueString: token },
          { name: "expiration", valueDateTime: expiresAt },
          { name: "subscription", valueString: resource.id },
          { name: "websocket-url", valueUrl: websocketUrlOf(store.baseUrl) },
        ],
      },
    };
  },
};

const topicListOperation: FhirOperation<Record<string, never>> = {
  name: "topic-list",
  definition: "http://hl7.org/fhir/uv/subscriptions-backport/OperationDefinition/Backport-subscriptiontopic-list",
  levels: ["type"],
  types: ["Subscription"],
  methods: ["GET"],
  permission: "fhir:read",
  input: "none",
  parameters: z.object({}) as never,
  summary: "Subscription/$topic-list: the SubscriptionTopic canonical URLs this server declares",
  handler: async () => ({
    body: { resourceType: "Parameters", meta: { profile: [IG.topicListProfile] }, parameter: TOPICS.map((t) => ({ name: "subscription-topic-canonical", valueCanonical: t.url })) },
  }),
};

export const subscriptionOperations: readonly AnyOperation[] = [statusOperation, eventsOperation, wsTokenOperation, topicListOperation];


