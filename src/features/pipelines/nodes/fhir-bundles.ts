// Bundle nodes: split a Bundle into its resources, and gather resources into a
// collection, batch or transaction Bundle.
import { z } from "zod";
import type { Bundle, BundleEntry, Resource } from "../../fhir";
import { defineNode } from "../node-type";
import { asBundle, asResource, RESOURCE_TYPE } from "./fhir-resource";

export const bundleSplit = defineNode({
  id: "fhir.bundle_split",
  name: "Bundle split",
  category: "healthcare",
  description: "Emits the resources of a Bundle as an array, optionally only those of some types.",
  keywords: ["bundle", "split", "entries", "unbundle", "resources"],
  inputs: [{ name: "bundle", type: "fhir-bundle" }],
  outputs: [{ name: "resources", type: "json", description: "Array of resources" }],
  config: z.object({ resource_types: z.array(z.string().regex(RESOURCE_TYPE)).default([]) }).strict(),
  documentation: {
    summary: "Feed the array to a for-each node to process resources one by one.",
    example: { config: { resource_types: ["Observation"] }, outputs: { resources: [{ resourceType: "Observation" }] } },
  },
  run: async ({ config, inputs }) => {
    const bundle = asBundle(inputs.bundle);
    const wanted = new Set(config.resource_types);
    const resources = (bundle.entry ?? [])
      .map((e) => e.resource)
      .filter((r): r is Resource => !!r && (!wanted.size || wanted.has(r.resourceType)));
    return { outputs: { resources } };
  },
});

export const bundleMerge = defineNode({
  id: "fhir.bundle_merge",
  name: "Bundle merge",
  category: "healthcare",
  description: "Builds a Bundle from resources and bundles (flattened); batch and transaction bundles get request entries.",
  keywords: ["bundle", "merge", "collect", "transaction", "batch", "combine"],
  inputs: [{ name: "resources", type: "any", multiple: true }],
  outputs: [{ name: "bundle", type: "fhir-bundle" }],
  config: z
    .object({
      type: z.enum(["collection", "batch", "transaction"]).default("collection"),
      method: z.enum(["POST", "PUT"]).default("PUT").describe("Request method for batch/transaction entries; PUT needs ids"),
    })
    .strict(),
  documentation: {
    summary: "Accepts resources, arrays of resources, and Bundles on any number of connections.",
    example: { config: { type: "transaction" }, outputs: { bundle: { resourceType: "Bundle", type: "transaction", entry: [] } } },
  },
  run: async ({ config, inputs }) => {
    const flat: Resource[] = [];
    const add = (v: unknown): void => {
      if (Array.isArray(v)) {
        for (const item of v) add(item);
        return;
      }
      const r = asResource(v, "resources");
      if (r.resourceType !== "Bundle") {
        flat.push(r);
        return;
      }
      for (const e of (r as Bundle).entry ?? []) if (e.resource) flat.push(e.resource);
    };
    add(inputs.resources ?? []);
    const entry: BundleEntry[] = flat.map((resource) => {
      if (config.type === "collection") return { resource };
      const put = config.method === "PUT" && resource.id;
      return {
        ...(put ? {} : { fullUrl: `urn:uuid:${crypto.randomUUID()}` }),
        resource,
        request: put ? { method: "PUT", url: `${resource.resourceType}/${resource.id}` } : { method: "POST", url: resource.resourceType },
      };
    });
    const bundle: Bundle = { resourceType: "Bundle", type: config.type, entry };
    return { outputs: { bundle } };
  },
});
