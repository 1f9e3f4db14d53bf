// A path whose percent-escapes do not decode answers 400 BAD_REQUEST on every route, in the path's
// error shape (OperationOutcome under /fhir, the management error elsewhere), never 5xx: each
// operation of the OpenAPI document is called with a bad escape in each of its path parameters.
import { describe, expect, it } from "vitest";
import { call, createTenant } from "../support/tenants";

const BAD_ESCAPES = ["%zz", "g%K", "%", "%E0%A4%A", "%C3%28", "a%2", "%FF"];
const METHODS = ["get", "post", "put", "patch", "delete"] as const;

interface Doc {
  paths: Record<string, Partial<Record<(typeof METHODS)[number], unknown>>>;
}

describe("malformed percent-escapes in a path", () => {
  it("answer 400 in the documented shape on every operation of the OpenAPI document, for each path parameter", { timeout: 120_000 }, async () => {
    const t = await createTenant();
    const doc = (await (await call("/api/openapi.json")).json()) as Doc;
    const cases: { method: string; path: string }[] = [];
    for (const [template, operations] of Object.entries(doc.paths)) {
      const params = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
      for (const method of METHODS) {
        if (!operations[method]) continue;
        params.forEach((bad, i) => {
          const path = template.replace(/\{(\w+)\}/g, (_, name: string) => (name === bad ? BAD_ESCAPES[(cases.length + i) % BAD_ESCAPES.length]! : name === "orgId" ? t.orgId : `x-${name}`));
          cases.push({ method: method.toUpperCase(), path });
        });
      }
    }
    expect(cases.length).toBeGreaterThan(150);
    const wrong: string[] = [];
    for (const { method, path } of cases) {
      const res = await t.fetch(path, { method, ...(method === "GET" || method === "DELETE" ? {} : { json: {} }) });
      const body = (await res.json().catch(() => undefined)) as { error?: { code: string; status: number; message: string }; resourceType?: string; issue?: { code: string }[] } | undefined;
      const shaped = path.startsWith("/fhir/")
        ? body?.resourceType === "OperationOutcome" && body.issue?.[0]?.code !== undefined
        : body?.error?.code === "BAD_REQUEST" && body.error.status === 400 && /percent-escape/.test(body.error.message);
      if (res.status !== 400 || !shaped) wrong.push(`${method} ${path}: ${res.status} ${JSON.stringify(body).slice(0, 160)}`);
    }
    expect(wrong).toEqual([]);
  });

  it("are refused before authentication and routing, and a good escape still reaches the route", async () => {
    const t = await createTenant();
    const anonymous = await call("/api/connectors/%zz/test", { method: "POST" });
    expect(anonymous.status).toBe(400);
    expect(await anonymous.json()).toMatchObject({ error: { code: "BAD_REQUEST", status: 400 } });
    expect((await call("/no/such/route/%zz")).status).toBe(400);
    const fhir = await call(`/fhir/r4/${t.orgId}/Patient/%C3%28`);
    expect(fhir.status).toBe(400);
    expect(await fhir.json()).toMatchObject({ resourceType: "OperationOutcome", issue: [{ severity: "error" }] });
    // Well-formed escapes are untouched: an encoded id is looked up decoded (404, not 400).
    const encoded = await t.fetch("/api/api-keys/g%25K");
    expect(encoded.status).toBe(404);
    // A bad escape in the query is the route's to judge (here: an unknown parameter, ignored).
    expect((await t.fetch("/api/organization?x=%zz")).status).toBe(200);
  });

  it("in a Bulk Data _typeFilter answer 400 naming the parameter", async () => {
    const t = await createTenant();
    const res = await t.fetch(`/fhir/r4/${t.orgId}/$export?_typeFilter=${encodeURIComponent("Patient?name=%zz")}`, { headers: { accept: "application/fhir+json", prefer: "respond-async" } });
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toContain("_typeFilter");
  });
});
