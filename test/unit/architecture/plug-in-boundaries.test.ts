// Standards and node families are plug-ins: the generic layers that host them (the
// inbound path, the node registry, connectors) import no standard and no other family;
// the composition root (src/main/) lists what plugs in.
import { describe, expect, it } from "vitest";
import { violations } from "./source-imports";

describe("plug-in boundaries", () => {
  it("the inbound feature imports no standard: protocols reach it through its adapter interface", () => {
    expect(violations("features/inbound", ["standards/"])).toEqual([]);
  });

  it("the node registry and core node families import neither the agents nor any standard", () => {
    expect(violations("features/pipelines/registry.ts", ["standards/", "features/agents"])).toEqual([]);
    expect(violations("features/pipelines/nodes", ["standards/", "features/agents"])).toEqual([]);
  });

  it("connectors import no standard: connector types come from the composition root", () => {
    expect(violations("features/connectors", ["standards/"])).toEqual([]);
  });

  it("the FHIR store imports no standard: operations join through src/main/", () => {
    expect(violations("features/fhir", ["standards/"])).toEqual([]);
  });
});
