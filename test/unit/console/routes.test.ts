// The console's router takes every route path from src/main/console-routes.ts, the list the Worker
// answers the console's page for (src/platform/http/spa-assets.ts), and every listed route is one
// of the router's: neither can gain a route the other lacks.
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CONSOLE_ROUTES } from "../../../src/main/console-routes";

const app = readFileSync(path.resolve(import.meta.dirname, "../../../console/src/App.tsx"), "utf8");

describe("console routes", () => {
  it("are the router's routes, one for one", () => {
    const routePaths = [...app.matchAll(/<Route\b[^>]*?\bpath=(\{[^}]*\}|"[^"]*")/g)].map((m) => m[1]);
    expect(routePaths.filter((p) => !p?.startsWith("{CONSOLE_ROUTES."))).toEqual([]);
    const used = routePaths.map((p) => p!.slice("{CONSOLE_ROUTES.".length, -1)).sort();
    expect(used).toEqual(Object.keys(CONSOLE_ROUTES).sort());
  });
});
