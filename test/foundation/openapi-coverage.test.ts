// Every endpoint the app serves appears in the OpenAPI document, with its method.
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/app";
import { call } from "../support/tenants";

/** Hono's ":param" (with optional {regex}) → OpenAPI's "{param}". */
const toOpenApiPath = (path: string) => path.replace(/:(\w+)(\{[^}]*\})?/g, "{$1}");

describe("OpenAPI coverage", () => {
  it("documents every served route", async () => {
    const doc = (await (await call("/api/openapi.json")).json()) as { paths: Record<string, Record<string, unknown>> };
    const served = buildApp()
      .routes.filter((r) => r.method !== "ALL" && !r.path.endsWith("*") && r.path !== "/api/openapi.json" && r.path !== "/api/docs")
      .map((r) => `${r.method.toLowerCase()} ${toOpenApiPath(r.path)}`);
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`));
    // A generic route that dispatches on a segment (FHIR's /{type}/{id} serving _search
    // and $validate) is covered by its documented concrete forms.
    const covers = (route: string) => {
      const pattern = new RegExp(`^${route.replace(/[$.]/g, "\\$&").replace(/\{\w+\}/g, "[^/]+")}$`);
      return documented.some((d) => d === route || pattern.test(d));
    };
    expect(served.length).toBeGreaterThan(50);
    expect(served.filter((r) => !covers(r))).toEqual([]);
  });
});
