// The app matches routes with Hono's TrieRouter, named in platform/http/router.ts, so no isolate
// spends its first request offering ~590 routes to the RegExpRouter first. Both tests guard that
// choice: the first that it is made, the second that its reason still holds.
import { UnsupportedPathError } from "hono/router";
import { RegExpRouter } from "hono/router/reg-exp-router";
import { describe, expect, it } from "vitest";
import { buildApp } from "../../src/main/app";

describe("the app's router", () => {
  it("is the TrieRouter from the start, with no fallback to find out", () => {
    const app = buildApp();
    expect(app.router.name).toBe("TrieRouter");
    // A SmartRouter would name its choice only after the first match; the TrieRouter is already it.
    const [handlers] = app.router.match("GET", "/fhir/r4/org-1/Patient/p-1");
    expect(handlers.length).toBeGreaterThan(1);
    expect(app.router.name).toBe("TrieRouter");
  });

  it("is needed: the RegExpRouter refuses FHIR's literal segments beside its parameters", () => {
    const refused: string[] = [];
    let routes = buildApp().routes.map((r) => [r.method, r.path] as const);
    // Offer the routes again without each refused one until the rest fit, to name every refusal.
    for (;;) {
      const router = new RegExpRouter<string>();
      try {
        for (const [method, path] of routes) router.add(method, path, path);
        router.match("GET", "/");
        break;
      } catch (e) {
        if (!(e instanceof UnsupportedPathError)) throw e;
        refused.push(e.message);
        routes = routes.filter(([, path]) => path !== e.message);
      }
    }
    // When a Hono release takes these, the TrieRouter choice should go (platform/http/router.ts).
    expect(refused).toEqual(expect.arrayContaining(["/fhir/r4/:orgId/:type", "/fhir/r4/:orgId/:type/:id", "/fhir/r4/:orgId/:type/_search"]));
  });
});
