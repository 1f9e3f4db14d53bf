// Helpers for FHIR worker tests: create resources and run searches as one tenant.
import type { Bundle, Resource } from "../../src/features/fhir/port";
import type { Tenant } from "../support/tenants";

export async function post(t: Tenant, resource: Resource): Promise<Resource & { id: string }> {
  const res = await t.fetch(`/fhir/r4/${t.orgId}/${resource.resourceType}`, { method: "POST", json: resource });
  if (res.status !== 201) throw new Error(`create failed ${res.status}: ${await res.text()}`);
  return (await res.json()) as Resource & { id: string };
}

export async function put(t: Tenant, resource: Resource & { id: string }): Promise<Resource & { id: string }> {
  const res = await t.fetch(`/fhir/r4/${t.orgId}/${resource.resourceType}/${resource.id}`, { method: "PUT", json: resource });
  if (res.status >= 300) throw new Error(`update failed ${res.status}: ${await res.text()}`);
  return (await res.json()) as Resource & { id: string };
}

export async function search(t: Tenant, query: string, init?: RequestInit): Promise<Bundle> {
  const res = await t.fetch(`/fhir/r4/${t.orgId}${query.startsWith("?") ? "" : "/"}${query}`, init);
  if (res.status !== 200) throw new Error(`search ${query} failed ${res.status}: ${await res.text()}`);
  return (await res.json()) as Bundle;
}

/** Ids of the match entries, in order. */
export async function ids(t: Tenant, query: string): Promise<string[]> {
  const b = await search(t, query);
  return (b.entry ?? []).filter((e) => e.search?.mode === "match").map((e) => e.resource!.id!);
}
