// Every endpoint the app serves appears in the OpenAPI document, with its method.
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/main/app";
import { call } from "../support/tenants";

/** Hono's ":param" (with optional {regex}) → OpenAPI's "{param}". */
const toOpenApiPath = (path: string) => path.replace(/:(\w+)(\{[^}]*\})?/g, "{$1}");

describe("OpenAPI coverage", () => {
  it("documents every served route", async () => {
    const doc = (await (await call("/api/openapi.json")).json()) as { paths: Record<string, Record<string, unknown>> };
    const served = buildApp()
      .routes.filter((r) => r.method !== "ALL" && !r.path.endsWith("*") && r.path !== "/api/openapi.json")
      .map((r) => `${r.method.toLowerCase()} ${toOpenApiPath(r.path)}`);
    const documented = new Set(Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`)));
    // A route generic in the resource type (a FHIR operation's /{type}/$name) is documented once per
    // type it serves (/Patient/$export, /Group/{id}/$export): any such instance documents it.
    const documentedByType = (route: string) => {
      const pattern = new RegExp(`^${route.replace(/[$.]/g, "\\$&").replace("{type}", "[A-Z][A-Za-z]+")}$`);
      return [...documented].some((d) => pattern.test(d));
    };
    expect(served.length).toBeGreaterThan(50);
    expect(served.filter((r) => !documented.has(r) && !(r.includes("{type}") && documentedByType(r)))).toEqual([]);
  });
});
