// The FHIR operations registry: every registered operation is served by the FHIR routes, listed
// in the CapabilityStatement and described in the OpenAPI document. A plug-in's operation (here a
// test-only one, as a standard under src/standards/ would declare it) joins through the
// composition root's list, without touching features/fhir.
import { z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/main/app";
import { defineOperation } from "../../src/features/fhir/operations/operation";
import { OperationRegistry } from "../../src/features/fhir/operations/registry";
import { FHIR_OPERATIONS } from "../../src/main/catalogs";
import { appFetch } from "../support/app-fetch";
import { createTenant } from "../support/tenants";
import { post } from "./support";

/** Test-only: echoes a word and, on a Patient, its family name (read through the store, audited). */
const echo = defineOperation({
  name: "echo",
  definition: "http://example.org/fhir/OperationDefinition/echo",
  levels: ["system", "instance"],
  types: ["Patient"],
  methods: ["GET", "POST"],
  permission: "fhir:read",
  input: "none",
  parameters: z.object({ word: z.string().min(1) }),
  summary: "Echo (test only)",
  handler: async ({ store, params, id }) => {
    const family = id ? ((await store.read("Patient", id)).name as { family: string }[])[0]!.family : undefined;
    const parameter = [{ name: "word", valueString: params.word }, ...(family ? [{ name: "family", valueString: family }] : [])];
    return { body: { resourceType: "Parameters", parameter } };
  },
});

interface Capabilities {
  rest: { resource: { type: string; operation?: { name: string; definition: string }[] }[]; operation: { name: string; definition: string }[] }[];
}

async function surfaces(fetch: ReturnType<typeof appFetch>, orgId: string) {
  const cs = (await (await fetch(`/fhir/r4/${orgId}/metadata`)).json()) as Capabilities;
  const doc = (await (await fetch("/api/openapi.json")).json()) as { paths: Record<string, Record<string, unknown>> };
  const onType = (type: string) => (cs.rest[0]!.resource.find((r) => r.type === type)!.operation ?? []).map((o) => o.name);
  return { system: cs.rest[0]!.operation.map((o) => o.name), onType, paths: doc.paths };
}

describe("FHIR operations registry", () => {
  it("serves, lists and documents every built-in operation from the registry", async () => {
    const t = await createTenant();
    const fetch = appFetch(buildApp(), t);
    const { system, onType, paths } = await surfaces(fetch, t.orgId);
    // The core operations, the subscriptions' ($status, $events, $get-ws-binding-token, $topic-list), then the standards' ($summary from IPS, $match from PDQm).
    expect(system).toEqual(["validate", "everything", "export", "status", "events", "get-ws-binding-token", "topic-list", "summary", "match"]);
    expect(onType("Patient")).toEqual(["validate", "everything", "patient-export", "summary", "match"]);
    expect(onType("Group")).toEqual(["validate", "group-export"]);
    expect(onType("Observation")).toEqual(["validate"]);
    for (const [path, methods] of [
      ["/fhir/r4/{orgId}/{type}/$validate", ["post"]],
      ["/fhir/r4/{orgId}/{type}/{id}/$validate", ["post"]],
      ["/fhir/r4/{orgId}/Patient/{id}/$everything", ["get", "post"]],
      ["/fhir/r4/{orgId}/$export", ["get", "post"]],
      ["/fhir/r4/{orgId}/Patient/$export", ["get", "post"]],
      ["/fhir/r4/{orgId}/Group/{id}/$export", ["get", "post"]],
    ] as const) {
      expect(Object.keys(paths[path] ?? {}).sort(), path).toEqual([...methods]);
    }
    expect(paths["/fhir/r4/{orgId}/$export"]!.get).toMatchObject({ parameters: expect.arrayContaining([expect.objectContaining({ name: "_typeFilter", in: "query" })]) });
    const p = await post(t, { resourceType: "Patient", name: [{ family: "Registry" }] });
    expect((await fetch(`/fhir/r4/${t.orgId}/Patient/${p.id}/$everything`)).status).toBe(200);
    expect((await fetch(`/fhir/r4/${t.orgId}/Patient/$validate`, { method: "POST", json: { resourceType: "Patient" } })).status).toBe(200);
  });

  it("takes a plug-in's operation through the composition root's list: route, CapabilityStatement and OpenAPI", async () => {
    const t = await createTenant();
    const fetch = appFetch(buildApp({ operations: new OperationRegistry([...FHIR_OPERATIONS, echo]) }), t);
    const { system, onType, paths } = await surfaces(fetch, t.orgId);
    expect(system).toContain("echo");
    expect(onType("Patient")).toContain("echo");
    expect(onType("Observation")).not.toContain("echo");
    expect(Object.keys(paths["/fhir/r4/{orgId}/$echo"]!).sort()).toEqual(["get", "post"]);
    expect(Object.keys(paths["/fhir/r4/{orgId}/Patient/{id}/$echo"]!).sort()).toEqual(["get", "post"]);

    const res = await fetch(`/fhir/r4/${t.orgId}/$echo?word=hello`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ resourceType: "Parameters", parameter: [{ name: "word", valueString: "hello" }] });
    const p = await post(t, { resourceType: "Patient", name: [{ family: "Plugged" }] });
    const onPatient = (await (await fetch(`/fhir/r4/${t.orgId}/Patient/${p.id}/$echo?word=hi`, { method: "POST" })).json()) as { parameter: { valueString: string }[] };
    expect(onPatient.parameter.map((x) => x.valueString)).toEqual(["hi", "Plugged"]);

    // Its parameters are checked by its schema; it exists only where it is declared.
    const invalid = await fetch(`/fhir/r4/${t.orgId}/$echo`);
    expect(invalid.status).toBe(400);
    expect(((await invalid.json()) as { resourceType: string }).resourceType).toBe("OperationOutcome");
    expect((await fetch(`/fhir/r4/${t.orgId}/Observation/x/$echo?word=hi`)).status).toBe(404);
    // The default wiring does not serve it.
    expect((await appFetch(buildApp(), t)(`/fhir/r4/${t.orgId}/$echo?word=hello`)).status).toBe(404);
  });

  it("refuses two declarations of one operation for the same level and type", () => {
    expect(() => new OperationRegistry([...FHIR_OPERATIONS, { ...echo, name: "everything" }])).toThrow(/declared twice/);
  });
});
