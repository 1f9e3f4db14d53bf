// Output nodes: call an HTTP endpoint (directly or through a connector), set the
// execution's response, write to the execution log.
import { z } from "zod";
import { CONSENT_DENIED_PORT, OutboundConsentConfig, outboundConsentGate } from "./consent-gate";
import { NodeFailure } from "../node-failure";
import { defineNode } from "../node-type";
import { evaluate, jsonataExpression } from "./expression";
import { DestinationIdConfig, queueMessage } from "./queued-send";

const READ_METHODS = new Set(["GET", "HEAD"]);

export const httpRequest = defineNode({
  id: "output.http_request",
  name: "HTTP request / webhook",
  category: "output",
  description: "Sends an HTTP request (JSON body from the input) to a URL or through an HTTP/FHIR connector, and emits the response.",
  keywords: ["http", "webhook", "rest", "api", "post", "request", "call"],
  inputs: [{ name: "input", type: "json" }],
  outputs: [
    { name: "response", type: "json", description: "{status, headers, body}" },
    { name: "http_error", type: "json", description: "The response instead, when its status is 4xx/5xx" },
    CONSENT_DENIED_PORT,
    { name: "queued", type: "json", description: "With destination_id: {destination_id, delivery_id, duplicate}" },
  ],
  config: z
    .object({
      connector_id: z.string().optional(),
      destination_id: DestinationIdConfig.optional(),
      url: z.url().optional().describe("Absolute URL when no connector; else a path under the connector endpoint"),
      path: z.string().default("").describe("Path under the connector endpoint"),
      method: z.enum(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]).default("POST"),
      headers: z.record(z.string(), z.string()).default({}),
      body_expression: jsonataExpression("yields the JSON body; default the input").optional(),
      consent: OutboundConsentConfig.optional().describe("Consent check before a body is sent (docs/consent.md)"),
    })
    .strict()
    .refine((c) => [c.connector_id, c.url, c.destination_id].filter(Boolean).length === 1, "Set exactly one of connector_id, url and destination_id")
    .refine((c) => !c.destination_id || !READ_METHODS.has(c.method), "A queued request sends something: POST, PUT, PATCH or DELETE"),
  destinations: (config) => (config.url ? [{ path: "url", url: config.url }] : []),
  documentation: {
    summary:
      "In test mode GET and HEAD are sent (reads are allowed); other methods report the request they would send. With consent.check always (or inherit under an organization that enforces outbound consent), a body about a patient whose consent denies disclosure is not sent: consent_denied gets the deciding Consent and provision. Destinations the outbound guard refuses (loopback, private, link-local, metadata; see OUTBOUND_ALLOW) fail with DESTINATION_NOT_ALLOWED, on save and on every redirect.",
    example: { config: { url: "https://example.org/hook", method: "POST" }, inputs: { input: { a: 1 } }, outputs: { response: { status: 200, body: { ok: true } } } },
  },
  run: async (ctx) => {
    const { config } = ctx;
    const body = READ_METHODS.has(config.method) ? undefined : JSON.stringify(config.body_expression ? await evaluate(config.body_expression, ctx.inputs.input) : ctx.inputs.input);
    const init: RequestInit = {
      method: config.method,
      headers: { ...(body !== undefined ? { "content-type": "application/json" } : {}), ...config.headers },
      body,
      signal: ctx.signal,
    };
    const target = config.destination_id ? `destination:${config.destination_id}` : config.connector_id ? `connector:${config.connector_id}/${config.path}` : (config.url as string);
    if (body !== undefined) {
      const denied = await outboundConsentGate(ctx, config.consent, target, JSON.parse(body), { input: ctx.inputs.input });
      if (denied) return { outputs: denied };
    }
    if (config.destination_id) {
      const method = config.method === "PATCH" ? "POST" : (config.method as "POST" | "PUT" | "DELETE");
      const queued = await queueMessage(ctx, config.destination_id, { body: body ?? "", content_type: "application/json", headers: config.headers, path: config.path || undefined, method });
      return { outputs: { queued } };
    }
    if (ctx.testMode && !READ_METHODS.has(config.method)) {
      ctx.wouldWrite(`http:${config.method} ${target}`, { headers: init.headers, body: body && JSON.parse(body) });
      return { outputs: { response: { status: 0, headers: {}, body: null, test_mode: "not sent" } } };
    }
    const res = config.connector_id
      ? await ctx.services.connectors.fetch(config.connector_id, config.path, init)
      : await ctx.services.fetch(config.url as string, init);
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    const response = { status: res.status, headers: Object.fromEntries(res.headers), body: parsed };
    ctx.log("info", `${config.method} answered ${res.status}`);
    return { outputs: res.ok ? { response } : { http_error: response } };
  },
});

export const enqueueOutput = defineNode({
  id: "output.enqueue",
  name: "Enqueue to destination",
  category: "output",
  description:
    "Hands the input to a destination's durable queue: delivered in order (per key when the destination orders per key), retried with backoff for up to days, dead-lettered with the last answer. The run does not wait for the delivery.",
  keywords: ["queue", "destination", "outbound", "send", "deliver", "retry", "mllp", "webhook", "reliable"],
  inputs: [{ name: "input", type: "any", description: "Text is sent as it is; anything else as JSON" }],
  outputs: [{ name: "queued", type: "json", description: "{destination_id, delivery_id, duplicate}" }],
  config: z
    .object({
      destination_id: DestinationIdConfig,
      key_expression: jsonataExpression("yields the ordering key (e.g. the patient), for destinations that order per key").optional(),
      content_type: z.string().max(200).optional().describe("Default: text/plain for text, application/json otherwise (HL7 v2 text: x-application/hl7-v2+er7)"),
      path: z.string().max(2048).optional().describe("HTTP destinations: a path under the endpoint"),
      method: z.enum(["POST", "PUT", "DELETE"]).optional().describe("HTTP destinations: default the destination's"),
      headers: z.record(z.string(), z.string()).default({}),
      label: z.string().max(200).optional().describe("Shown and filtered on in the destination's message list"),
    })
    .strict(),
  documentation: {
    summary:
      "The delivery id is <execution>:<node>:0, so running the node again in the same execution queues nothing twice, and receivers can de-duplicate on it (x-delivery-id; webhook-id on signed destinations). Test mode resolves the destination (an unknown one fails with DESTINATION_NOT_FOUND) and queues nothing: would_write shows the message.",
    example: { config: { destination_id: "<destination id>", key_expression: "subject.reference" }, inputs: { input: { resourceType: "Observation", subject: { reference: "Patient/1" } } }, outputs: { queued: { destination_id: "…", delivery_id: "…:n3:0", duplicate: false } } },
  },
  run: async (ctx) => {
    const { config } = ctx;
    const input = ctx.inputs.input;
    const text = typeof input === "string";
    const key = config.key_expression ? await evaluate(config.key_expression, input) : undefined;
    const queued = await queueMessage(ctx, config.destination_id, {
      body: text ? input : JSON.stringify(input),
      content_type: config.content_type ?? (text ? "text/plain" : "application/json"),
      headers: config.headers,
      ...(key !== undefined && key !== null ? { key: String(key) } : {}),
      ...(config.path ? { path: config.path } : {}),
      ...(config.method ? { method: config.method } : {}),
      ...(config.label ? { label: config.label } : {}),
    });
    return { outputs: { queued } };
  },
});

export const respond = defineNode({
  id: "output.respond",
  name: "Respond with output",
  category: "output",
  description: "Sets the execution's outputs (what POST /api/execute returns) to the input, or to an expression over it.",
  keywords: ["respond", "return", "output", "result", "reply"],
  inputs: [{ name: "input", type: "any" }],
  outputs: [],
  config: z.object({ expression: jsonataExpression("yields the outputs").optional() }).strict(),
  documentation: {
    summary: "Without a respond node, outputs are the outputs of every end node, by node id.",
    example: { config: { expression: "{ 'count': $count(entry) }" }, outputs: {} },
  },
  run: async ({ config, inputs }) => {
    const value = config.expression ? await evaluate(config.expression, inputs.input) : inputs.input;
    if (value !== undefined && (typeof value !== "object" || value === null || Array.isArray(value))) {
      return { outputs: {}, executionOutput: { result: value } };
    }
    return { outputs: {}, executionOutput: value ?? {} };
  },
});

export const logNode = defineNode({
  id: "output.log",
  name: "Log",
  category: "output",
  description: "Writes a message (JSONata over the input) to the execution record's logs and passes the input on.",
  keywords: ["log", "debug", "trace", "print", "audit"],
  inputs: [{ name: "input", type: "any" }],
  outputs: [{ name: "output", type: "json" }],
  config: z
    .object({
      level: z.enum(["debug", "info", "warn", "error"]).default("info"),
      message: jsonataExpression("yields the message").default("$string($)"),
    })
    .strict(),
  documentation: {
    summary: "Logs are kept per node in GET /api/executions/{id}.",
    example: { config: { message: "'patient ' & id" }, inputs: { input: { id: "p1" } }, outputs: { output: { id: "p1" } } },
  },
  run: async ({ config, inputs, log }) => {
    const message = await evaluate(config.message, inputs.input);
    if (message === undefined) throw new NodeFailure("EMPTY_LOG_MESSAGE", "The message expression yielded nothing");
    log(config.level, typeof message === "string" ? message : JSON.stringify(message));
    return { outputs: { output: inputs.input } };
  },
});
