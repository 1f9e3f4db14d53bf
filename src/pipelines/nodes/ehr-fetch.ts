// Fetches resources from a connected EHR's FHIR API through a connector, follows
// paging, normalizes them and upserts them into the organization's store keyed
// by their source id, so re-fetching updates instead of duplicating.
import { z } from "zod";
import type { Bundle, Resource } from "../../fhir/port";
import { NodeFailure } from "../engine";
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
    summary: "Each fetched resource is stored with identifier urn:cdis:connector:<id>|<source id>; its source URL goes to meta.source.",
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
    const normalized = fetched.map((r) => normalize(r, config.connector_id, endpoint));
    const counts = { fetched: fetched.length, created: 0, updated: 0, pages };
    if (!config.store) return { outputs: { resources: normalized, summary: counts } };
    const stored: Resource[] = [];
    for (const [i, resource] of normalized.entries()) {
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
    }
    ctx.log("info", `Fetched ${counts.fetched} ${config.resource_type} in ${pages} page(s)`);
    return { outputs: { resources: stored, summary: counts } };
  },
});
