// Writes FHIR R4 resources back to a connected EHR's FHIR API through a FHIR connector: create,
// update, conditional create/update, transaction. Our resources are turned back into the EHR's
// id space from the identifiers EHR fetch recorded (urn:cdis:connector:<id>|<EHR id>): the
// resource's own id and every reference to a resource fetched from the same connector. Throttling
// (429, 503) is retried after Retry-After; any other refusal fails the node with the EHR's
// OperationOutcome in its error details (on_error "route" sends it to the error port).
import { z } from "zod";
import { CONSENT_DENIED_PORT, OutboundConsentConfig, outboundConsentGate } from "./consent-gate";
import type { Bundle, Resource } from "../../fhir";
import { NodeFailure } from "../node-failure";
import { defineNode, type NodeContext } from "../node-type";
import { sourceSystem } from "./ehr-fetch";
import { evaluate, jsonataExpression } from "./expression";
import { asResource } from "./fhir-resource";
import { DestinationIdConfig, queueMessage } from "./queued-send";

const Config = z
  .object({
    connector_id: z.string().min(1),
    destination_id: DestinationIdConfig.optional().describe("A destination delivering through this connector: the write goes to its durable queue (retried for days, in order per patient) instead of being sent now"),
    operation: z.enum(["create", "update", "conditional_create", "conditional_update", "transaction"]).default("create"),
    match: z.string().optional().describe("conditional_*: the search that identifies the EHR's copy; default identifier=<system>|<value> of the resource's first identifier"),
    match_expression: jsonataExpression("yields the conditional search from the resource").optional(),
    if_match_expression: jsonataExpression("yields the EHR version the update must replace (sent as If-Match: W/\"v\")").optional(),
    unmapped_references: z
      .enum(["keep", "fail"])
      .default("keep")
      .describe("A reference to a resource the EHR has no copy of: send as is, or fail with UNMAPPED_REFERENCE (a malformed one, e.g. \"Patient/\", with INVALID_REFERENCE)"),
    max_retries: z.number().int().min(0).max(10).default(3).describe("Retries of a 429 or 503"),
    max_retry_wait_ms: z.number().int().min(0).max(120_000).default(30_000).describe("Longest Retry-After honoured; longer fails with EHR_THROTTLED"),
    consent: OutboundConsentConfig.optional().describe("Consent check before sending (docs/consent.md)"),
  })
  .strict();
type Config = z.infer<typeof Config>;

const ABSOLUTE = /^[a-z][a-z0-9+.-]*:/i;
const RELATIVE_REF = /^([A-Z][A-Za-z]+)\/([A-Za-z0-9\-.]{1,64})$/;
/** A relative reference as FHIR R4 defines it (3.1.2.3.2): Type/id, optionally versioned. */
const RELATIVE_REFERENCE = /^([A-Z][A-Za-z]+)\/([A-Za-z0-9\-.]{1,64})(?:\/_history\/[A-Za-z0-9\-.]{1,64})?$/;

/** The EHR id EHR fetch recorded on a resource of ours, if it came from this connector. */
export function ehrIdOf(resource: Resource, connectorId: string): string | undefined {
  const ids = Array.isArray(resource.identifier) ? (resource.identifier as { system?: string; value?: string }[]) : [];
  return ids.find((i) => i.system === sourceSystem(connectorId))?.value;
}

/** Resolves our "Type/id" to the EHR's "Type/<EHR id>" through the store, once per target per run. */
type EhrRefLookup = (type: string, localId: string) => Promise<string | undefined>;

/**
 * Our resource as the EHR should receive it: our id, version and source stripped (the EHR owns
 * its own), the connector's source identifier dropped, references rewritten into the EHR's ids.
 */
export async function toEhrResource(resource: Resource, connectorId: string, endpoint: string, lookup: EhrRefLookup, unmapped: Config["unmapped_references"]): Promise<Resource> {
  const base = endpoint.replace(/\/$/, "");
  const visit = async (value: unknown): Promise<unknown> => {
    if (Array.isArray(value)) return Promise.all(value.map(visit));
    if (!value || typeof value !== "object") return value;
    // fromEntries keeps a "__proto__" member as data instead of re-parenting `out`.
    const out: Record<string, unknown> = Object.fromEntries(await Promise.all(Object.entries(value).map(async ([k, v]) => [k, await visit(v)])));
    if (typeof out.reference === "string") out.reference = await rewrite(out.reference);
    return out;
  };
  const rewrite = async (reference: string): Promise<string> => {
    if (reference.startsWith(`${base}/`)) return reference.slice(base.length + 1);
    if (reference.startsWith("#") || ABSOLUTE.test(reference)) return reference;
    const m = RELATIVE_REFERENCE.exec(reference);
    if (!m) {
      // "Patient/", "patient/7", "Patient/7/x": no resource the EHR could resolve.
      if (unmapped === "fail") throw new NodeFailure("INVALID_REFERENCE", `${JSON.stringify(reference)} is not a FHIR reference (Type/id, an absolute URL or #contained)`);
      return reference;
    }
    // Our version of a resource means nothing at the EHR: its copy is referenced unversioned.
    const ehrId = await lookup(m[1]!, m[2]!);
    if (ehrId) return `${m[1]}/${ehrId}`;
    if (unmapped === "fail") throw new NodeFailure("UNMAPPED_REFERENCE", `${reference} has no copy in the EHR (no ${sourceSystem(connectorId)} identifier)`);
    return reference;
  };
  const { id: _id, meta, ...rest } = resource;
  const body = (await visit(rest)) as Resource;
  const identifier = (Array.isArray(body.identifier) ? (body.identifier as { system?: string }[]) : []).filter((i) => i.system !== sourceSystem(connectorId));
  const keptMeta = { ...(meta?.profile ? { profile: meta.profile } : {}), ...(meta?.tag ? { tag: meta.tag } : {}), ...(meta?.security ? { security: meta.security } : {}) };
  const { identifier: _identifier, ...withoutIdentifier } = body;
  return { ...withoutIdentifier, ...(identifier.length ? { identifier } : {}), ...(Object.keys(keptMeta).length ? { meta: keptMeta } : {}) } as Resource;
}

/** Seconds or an HTTP-date, in ms from now; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

interface EhrRequest {
  method: "POST" | "PUT";
  path: string;
  headers: Record<string, string>;
  body: Resource;
}

const defaultMatch = (resource: Resource, connectorId: string): string => {
  const ids = Array.isArray(resource.identifier) ? (resource.identifier as { system?: string; value?: string }[]) : [];
  const id = ids.find((i) => i.value && i.system && i.system !== sourceSystem(connectorId));
  if (!id) throw new NodeFailure("NO_MATCH", "A conditional write needs match, match_expression or a resource identifier with a system");
  return `identifier=${encodeURIComponent(`${id.system}|${id.value}`)}`;
};

/** The one HTTP request the node sends for its input. */
async function buildRequest(ctx: NodeContext<Config>, input: Resource, endpoint: string, lookup: EhrRefLookup): Promise<EhrRequest> {
  const { config } = ctx;
  const headers: Record<string, string> = { "content-type": "application/fhir+json", accept: "application/fhir+json", prefer: "return=representation" };
  const convert = (r: Resource) => toEhrResource(r, config.connector_id, endpoint, lookup, config.unmapped_references);
  const match = async () => (config.match_expression ? String((await evaluate(config.match_expression, input)) ?? "") : (config.match ?? defaultMatch(input, config.connector_id)));
  if (config.operation === "transaction") {
    if (input.resourceType !== "Bundle") throw new NodeFailure("NOT_A_BUNDLE", `transaction needs a Bundle, got ${input.resourceType}`);
    const entries = await Promise.all(
      ((input as Bundle).entry ?? []).map(async (e) => {
        if (!e.resource) return e;
        const ehrId = ehrIdOf(e.resource, config.connector_id);
        const request = e.request ?? (ehrId ? { method: "PUT", url: `${e.resource.resourceType}/${ehrId}` } : { method: "POST", url: e.resource.resourceType });
        const resource = await convert(e.resource);
        return { ...(e.fullUrl ? { fullUrl: e.fullUrl } : {}), resource: request.method === "PUT" && RELATIVE_REF.test(request.url) ? { ...resource, id: request.url.split("/")[1] } : resource, request };
      }),
    );
    return { method: "POST", path: "", headers, body: { resourceType: "Bundle", type: "transaction", entry: entries } };
  }
  const body = await convert(input);
  switch (config.operation) {
    case "create":
      return { method: "POST", path: input.resourceType, headers, body };
    case "conditional_create":
      return { method: "POST", path: input.resourceType, headers: { ...headers, "if-none-exist": await match() }, body };
    case "conditional_update":
      return { method: "PUT", path: `${input.resourceType}?${await match()}`, headers, body };
    case "update": {
      const ehrId = ehrIdOf(input, config.connector_id);
      if (!ehrId) throw new NodeFailure("NO_EHR_ID", `update needs the EHR's id: the resource has no ${sourceSystem(config.connector_id)} identifier (fetch it with EHR fetch first)`);
      const version = config.if_match_expression ? await evaluate(config.if_match_expression, input) : undefined;
      return { method: "PUT", path: `${input.resourceType}/${ehrId}`, headers: { ...headers, ...(version !== undefined && version !== null && version !== "" ? { "if-match": `W/"${String(version)}"` } : {}) }, body: { ...body, id: ehrId } };
    }
  }
}

const THROTTLED = new Set([429, 503]);

async function readBody(res: Response): Promise<Resource | undefined> {
  const text = await res.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text) as Resource;
  } catch {
    return { resourceType: "OperationOutcome", issue: [{ severity: "error", code: "exception", diagnostics: text.slice(0, 500) }] };
  }
}

/** Sends the request, retrying throttling after Retry-After (else 1 s, 2 s, 4 s...). */
async function send(ctx: NodeContext<Config>, req: EhrRequest): Promise<{ res: Response; body: Resource | undefined; attempts: number }> {
  const { config } = ctx;
  for (let attempt = 1; ; attempt++) {
    const res = await ctx.services.connectors.fetch(config.connector_id, req.path, { method: req.method, headers: req.headers, body: JSON.stringify(req.body), signal: ctx.signal });
    if (!THROTTLED.has(res.status) || attempt > config.max_retries) return { res, body: await readBody(res), attempts: attempt };
    const wait = retryAfterMs(res.headers.get("retry-after")) ?? 1000 * 2 ** (attempt - 1);
    await res.body?.cancel();
    if (wait > config.max_retry_wait_ms) throw new NodeFailure("EHR_THROTTLED", `The EHR answered ${res.status} and asked to wait ${wait} ms, over max_retry_wait_ms`, { status: res.status });
    ctx.log("warn", `EHR answered ${res.status}; retrying in ${wait} ms (attempt ${attempt + 1})`);
    await new Promise((r) => setTimeout(r, wait));
  }
}

/** The patient a resource is about (its subject or patient reference), else itself: the queue keeps each one's writes in order. */
function orderingKey(resource: Resource): string {
  const ref = (resource.subject as { reference?: string } | undefined)?.reference ?? (resource.patient as { reference?: string } | undefined)?.reference;
  return ref ?? `${resource.resourceType}/${resource.id ?? ""}`;
}

/** The request handed to a destination that delivers through the node's connector. */
async function queueWrite(ctx: NodeContext<Config>, destinationId: string, req: EhrRequest, input: Resource) {
  const { target } = await ctx.services.destinations.settings(destinationId);
  if (target.kind !== "connector" || target.connector_id !== ctx.config.connector_id) {
    throw new NodeFailure("DESTINATION_MISMATCH", `Destination ${destinationId} does not deliver through connector ${ctx.config.connector_id}: EHR ids are mapped for that connector`);
  }
  const { "content-type": contentType, ...headers } = req.headers;
  const queued = await queueMessage(ctx, destinationId, { body: JSON.stringify(req.body), content_type: contentType, headers, path: req.path, method: req.method, key: orderingKey(input), label: `${req.method} ${req.path || "(transaction)"}` });
  return { status: 202, outcome: "queued", ...queued };
}

export const ehrWrite = defineNode({
  id: "fhir.ehr_write",
  name: "Write to EHR",
  category: "healthcare",
  description: "Sends FHIR R4 resources to a connected EHR's FHIR API (FHIR connector): create, update, conditional create/update, transaction; ids and references mapped back to the EHR's.",
  keywords: ["ehr", "emr", "write", "write-back", "epic", "cerner", "export", "sync", "connector", "transaction"],
  inputs: [{ name: "resource", type: "any", description: "A resource (a Bundle for transaction)" }],
  outputs: [{ name: "written", type: "json", description: "{status, outcome, id, version_id, location, etag, resource, attempts}" }, CONSENT_DENIED_PORT],
  config: Config,
  documentation: {
    summary:
      "update PUTs to the EHR id EHR fetch recorded (identifier urn:cdis:connector:<id>); references to resources fetched from the same connector are rewritten to the EHR's ids. 429/503 are retried after Retry-After; other failures fail with EHR_WRITE_FAILED, or EHR_VERSION_CONFLICT on 409/412 to an If-Match update, details {status, outcome} carrying the EHR's OperationOutcome (on_error route: the error port). Test mode sends nothing; would_write has the exact request. With destination_id (a destination whose target is this connector, else DESTINATION_MISMATCH) the request goes to its durable queue and written is {status: 202, outcome: queued, delivery_id}: the EHR's answer is on the destination's message record.",
    example: {
      config: { connector_id: "<connector id>", operation: "conditional_update" },
      inputs: { resource: { resourceType: "Patient", identifier: [{ system: "urn:mrn", value: "7" }] } },
      outputs: { written: { status: 201, outcome: "created", id: "e1", version_id: "1" } },
    },
  },
  run: async (ctx) => {
    const { config, services } = ctx;
    const input = asResource(ctx.inputs.resource);
    const endpoint = await services.connectors.endpoint(config.connector_id);
    const cache = new Map<string, Promise<string | undefined>>();
    const lookup: EhrRefLookup = (type, localId) => {
      const key = `${type}/${localId}`;
      if (!cache.has(key)) {
        cache.set(
          key,
          services
            .fhir()
            .read(type, localId)
            .then((r) => ehrIdOf(r, config.connector_id))
            .catch(() => undefined),
        );
      }
      return cache.get(key)!;
    };
    const req = await buildRequest(ctx, input, endpoint, lookup);
    const target = `ehr:${config.connector_id}`;
    const denied = await outboundConsentGate(ctx, config.consent, target, input, { input });
    if (denied) return { outputs: denied };
    if (config.destination_id) return { outputs: { written: await queueWrite(ctx, config.destination_id, req, input) } };
    if (ctx.testMode) {
      ctx.wouldWrite(`${target} ${req.method} ${req.path}`, { method: req.method, url: `${endpoint.replace(/\/$/, "")}/${req.path}`, headers: req.headers, body: req.body });
      return { outputs: { written: { status: 0, outcome: "would_write", request: req } } };
    }
    const { res, body, attempts } = await send(ctx, req);
    if (!res.ok) {
      const outcome = body?.resourceType === "OperationOutcome" ? body : undefined;
      const diagnostics = (outcome?.issue as { diagnostics?: string; details?: { text?: string } }[] | undefined)?.map((i) => i.diagnostics ?? i.details?.text).filter(Boolean).join("; ");
      const code = (res.status === 409 || res.status === 412) && req.headers["if-match"] ? "EHR_VERSION_CONFLICT" : res.status === 429 || res.status === 503 ? "EHR_THROTTLED" : "EHR_WRITE_FAILED";
      throw new NodeFailure(code, `The EHR answered ${res.status} to ${req.method} ${req.path || "(transaction)"}${diagnostics ? `: ${diagnostics}` : ""}`, { status: res.status, ...(outcome ? { outcome } : {}), attempts });
    }
    const etag = res.headers.get("etag") ?? undefined;
    const resource = body?.resourceType === "OperationOutcome" ? undefined : body;
    const written = {
      status: res.status,
      outcome: res.status === 201 ? "created" : config.operation === "conditional_create" ? "existing" : config.operation === "transaction" ? "transaction" : "updated",
      ...(resource?.id ? { id: resource.id } : {}),
      ...(resource?.meta?.versionId ? { version_id: resource.meta.versionId } : {}),
      ...(res.headers.get("location") ? { location: res.headers.get("location") } : {}),
      ...(etag ? { etag } : {}),
      ...(resource ? { resource } : {}),
      attempts,
    };
    ctx.log("info", `EHR answered ${res.status} to ${req.method} ${req.path || "(transaction)"} after ${attempts} attempt(s)`);
    return { outputs: { written } };
  },
});
