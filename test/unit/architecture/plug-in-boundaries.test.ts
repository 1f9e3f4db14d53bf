// Standards and node families are plug-ins: the generic layers that host them (the
// inbound path, the node registry, connectors) import no standard and no other family;
// the composition root (src/*.ts) lists what plugs in.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const SRC = path.resolve(import.meta.dirname, "../../../src");

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? files(full) : full.endsWith(".ts") ? [full] : [];
  });
}

/** Every module a file imports (type imports too), as paths relative to src/. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/\bfrom\s+"(\.[^"]+)"|\bimport\s+"(\.[^"]+)"/g)].map((m) => path.relative(SRC, path.resolve(path.dirname(file), (m[1] ?? m[2]) as string)));
}

/** "file → import" for each import of a file under `folder` (or the file itself) that starts with a forbidden prefix. */
function violations(folder: string, forbidden: string[]): string[] {
  const target = path.join(SRC, folder);
  const list = statSync(target).isDirectory() ? files(target) : [target];
  return list.flatMap((file) =>
    importsOf(file)
      .filter((imported) => forbidden.some((prefix) => imported.startsWith(prefix)))
      .map((imported) => `${path.relative(SRC, file)} → ${imported}`),
  );
}

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

  it("the FHIR store imports no standard: operations join through src/fhir-operations.ts", () => {
    expect(violations("features/fhir", ["standards/", "fhir-operations"])).toEqual([]);
  });

  // The HTTP plumbing is generic over its Hono environment (platform/http/http-env.ts); the app passes its own.
  it("the platform imports no feature, no standard and nothing of the composition root", () => {
    const root = ["app", "app-env", "context", "org-context", "service-wiring", "scheduled", "node-catalog", "connector-catalog", "inbound-protocols", "fhir-operations", "tables"];
    expect(violations("platform", ["features/", "standards/", ...root])).toEqual([]);
  });

  it("no feature imports the composition root's catalogs except the registries that read them", () => {
    const readers = violations("features", ["node-catalog", "inbound-protocols", "connector-catalog", "device-platform-catalog"]).map((v) => v.split(" → ")[0]);
    expect([...new Set(readers)].sort()).toEqual(["features/connectors/types.ts", "features/devices/platforms.ts", "features/inbound/message-router.ts", "features/pipelines/registry.ts"]);
  });
});
