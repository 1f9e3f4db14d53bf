// Fetches resources from a connected EHR's FHIR API through a connector, follows
// paging, normalizes them and upserts them into the organization's store keyed
// by their source id, so re-fetching updates instead of duplicating. References
// into the EHR's id space are rewritten to the local copies (see localizeReferences).
import { z } from "zod";
import type { Bundle, Resource } from "../../fhir";
import { NodeFailure } from "../node-failure";
import { defineNode } from "../node-type";
import { evaluate, jsonataExpression } from "./expression";
import { RESOURCE_TYPE } from "./fhir-resource";

/** Identifier system that records where a normalized resource came from. */
export const sourceSystem = (connectorId: string) => `urn:cdis:connector:${connectorId}`;

/**
 * Normalization: drop the source's id and server meta, keep the source id as an
 * identifier and the source URL in meta.source, so the store owns ids and versions.
 */
export function normalize(resource: Resource, connectorId: string, endpoint: string): Resource {
  const { id, meta, ...rest } = resource;
  const identifier = Array.isArray(rest.identifier) ? [...(rest.identifier as unknown[])] : [];
  if (id) identifier.push({ system: sourceSystem(connectorId), value: id });
  const tags = meta?.tag ?? [];
  return {
    ...rest,
    ...(identifier.length ? { identifier } : {}),
    meta: {
      source: id ? `${endpoint.replace(/\/$/, "")}/${resource.resourceType}/${id}` : endpoint,
      ...(meta?.profile ? { profile: meta.profile } : {}),
      ...(tags.length ? { tag: tags } : {}),
    },
  };
}

/** The resource type and source id a reference names in the EHR's id space, if it does. */
function sourceTarget(reference: string, endpoint: string): { type: string; id: string } | undefined {
  const base = endpoint.replace(/\/$/, "");
  const relative = reference.startsWith(`${base}/`) ? reference.slice(base.length + 1) : reference;
  const m = /^([A-Z][A-Za-z]+)\/([A-Za-z0-9\-.]{1,64})$/.exec(relative);
  return m ? { type: m[1]!, id: m[2]! } : undefined;
}

/**
 * Rewrites every reference into the EHR's id space: to `Type/<local id>` when a resource
 * fetched from the same connector is already stored (found by its source identifier),
 * otherwise to the absolute URL of the EHR's copy, which stays a valid, resolvable reference.
 */
export async function localizeReferences(
  resource: Resource,
  connectorId: string,
  endpoint: string,
  lookup: (type: string, identifierQuery: string) => Promise<string | undefined>,
): Promise<Resource> {
  const base = endpoint.replace(/\/$/, "");
  const visit = async (value: unknown): Promise<unknown> => {
    if (Array.isArray(value)) return Promise.all(value.map(visit));
    if (!value || typeof value !== "object") return value;
    // fromEntries keeps a remote "__proto__" member as data instead of re-parenting `out`.
    const out: Record<string, unknown> = Object.fromEntries(await Promise.all(Object.entries(value).map(async ([k, v]) => [k, await visit(v)])));
    if (typeof out.reference === "string") {
      const target = sourceTarget(out.reference, endpoint);
      if (target) {
        const local = await lookup(target.type, `identifier=${encodeURIComponent(`${sourceSystem(connectorId)}|${target.id}`)}`);
        out.reference = local ? `${target.type}/${local}` : `${base}/${target.type}/${target.id}`;
      }
    }
    return out;
  };
  return (await visit(resource)) as Resource;
}

export const ehrFetch = defineNode({
  id: "fhir.ehr_fetch",
  name: "Fetch from EHR",
  category: "healthcare",
  description: "Searches a connected EHR's FHIR API (FHIR connector), normalizes the results and upserts them into the store.",
  keywords: ["ehr", "emr", "epic", "cerner", "fetch", "import", "sync", "normalize", "connector"],
  inputs: [{ name: "input", type: "json" }],
  outputs: [
    { name: "resources", type: "json", description: "The normalized resources as stored" },
    { name: "summary", type: "json", description: "{fetched, created, updated, pages}" },
  ],
  config: z
    .object({
      connector_id: z.string().min(1),
      resource_type: z.string().regex(RESOURCE_TYPE),
      query: z.string().default(""),
      query_expression: jsonataExpression("yields the search query from the input").optional(),
      max_pages: z.number().int().min(1).max(50).default(5),
      store: z.boolean().default(true).describe("false: only fetch and normalize"),
    })
    .strict(),
  documentation: {
    summary:
      "Each fetched resource is stored with identifier urn:cdis:connector:<id>|<source id>; its source URL goes to meta.source. References into the EHR (Patient/e1 or its absolute URL) point to the local copy when one was fetched before, else to the EHR's absolute URL; fetch referenced types first (e.g. Patient, then Observation).",
    example: { config: { connector_id: "<connector id>", resource_type: "Patient", query: "_count=50" }, outputs: { summary: { fetched: 2, created: 2, updated: 0, pages: 1 } } },
  },
  run: async (ctx) => {
    const { config, services } = ctx;
    const query = config.query_expression ? String((await evaluate(config.query_expression, ctx.inputs.input)) ?? "") : config.query;
    const endpoint = await services.connectors.endpoint(config.connector_id);
    let next: string | undefined = `${config.resource_type}${query ? `?${query}` : ""}`;
    const fetched: Resource[] = [];
    let pages = 0;
    while (next && pages < config.max_pages) {
      const res = await services.connectors.fetch(config.connector_id, next, { headers: { accept: "application/fhir+json" } });
      if (!res.ok) throw new NodeFailure("EHR_FETCH_FAILED", `EHR answered HTTP ${res.status} for ${next}`);
      const bundle = (await res.json()) as Bundle;
      pages += 1;
      for (const e of bundle.entry ?? []) {
        if (e.resource && (e.search?.mode ?? "match") === "match") fetched.push(e.resource);
      }
      next = bundle.link?.find((l) => l.relation === "next")?.url;
    }
    // One lookup per distinct target per run; resources stored in this run are found by later ones.
    const cache = new Map<string, Promise<string | undefined>>();
    const lookup = (type: string, query: string) => {
      const key = `${type}?${query}`;
      if (!cache.has(key)) cache.set(key, services.fhir().search(type, `${query}&_count=1`).then((b) => b.entry?.[0]?.resource?.id));
      return cache.get(key)!;
    };
    const counts = { fetched: fetched.length, created: 0, updated: 0, pages };
    if (!config.store) {
      return { outputs: { resources: fetched.map((r) => normalize(r, config.connector_id, endpoint)), summary: counts } };
    }
    const stored: Resource[] = [];
    for (const [i, fetchedResource] of fetched.entries()) {
      const resource = await localizeReferences(normalize(fetchedResource, config.connector_id, endpoint), config.connector_id, endpoint, lookup);
      const sourceId = fetched[i]?.id;
      const match = `identifier=${encodeURIComponent(`${sourceSystem(config.connector_id)}|${sourceId}`)}`;
      if (ctx.testMode) {
        ctx.wouldWrite(`fhir:upsert?${match}`, resource);
        stored.push(resource);
        continue;
      }
      const result = sourceId ? await services.fhir().conditionalUpdate(match, resource) : await services.fhir().create(resource);
      counts[result.outcome === "created" ? "created" : "updated"] += 1;
      stored.push(result.resource);
      if (sourceId && result.resource.id) cache.set(`${resource.resourceType}?${match}`, Promise.resolve(result.resource.id));
    }
    ctx.log("info", `Fetched ${counts.fetched} ${config.resource_type} in ${pages} page(s)`);
    return { outputs: { resources: stored, summary: counts } };
  },
});
