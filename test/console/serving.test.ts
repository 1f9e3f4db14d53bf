// The console as the Worker serves it from its static assets: its page for exactly the routes the
// console's router has (src/main/console-routes.ts), its files, and 404 for every other path, each
// answer with the X-RateLimit-* headers of every response (spec 8). The Worker suite's assets are
// the fixed stand-in of vitest.config.ts (an index.html and one file under assets/).
import { describe, expect, it } from "vitest";
import { CONSOLE_ROUTES } from "../../src/main/console-routes";
import { call } from "../support/tenants";

const ip = () => ({ "cf-connecting-ip": crypto.randomUUID() });
const limited = (res: Response) => ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"].map((h) => res.headers.get(h) !== null);

describe("serving the console", () => {
  it("answers the console's page for each of its routes, with the rate-limit headers", async () => {
    const paths = Object.values(CONSOLE_ROUTES).map((r) => r.replace(/:[a-z]+/g, "x-1"));
    for (const path of [...paths, "/pipelines/", "/Pipelines/abc/edit"]) {
      const res = await call(path, { headers: ip() });
      expect({ path, status: res.status, type: res.headers.get("content-type") }).toEqual({ path, status: 200, type: expect.stringContaining("text/html") });
      expect(await res.text()).toContain("Console stand-in");
      expect(limited(res)).toEqual([true, true, true]);
      expect(res.headers.get("x-ratelimit-remaining")).toBe("299");
    }
  });

  it("answers its files, and 404 for a path that is neither a route nor a file", async () => {
    const file = await call("/assets/stand-in.js", { headers: ip() });
    expect(file.status).toBe(200);
    expect(await file.text()).toContain("stand-in");
    expect(limited(file)).toEqual([true, true, true]);
    for (const path of ["/nowhere", "/pipelines/a/b/c", "/settings", "/assets/missing.js", "/executions/x/y", "/wp-login.php"]) {
      const res = await call(path, { headers: ip() });
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(await res.json()).toMatchObject({ error: { code: "NOT_FOUND", status: 404 } });
      expect(limited(res)).toEqual([true, true, true]);
    }
    // A method the console does not serve is no page either.
    expect((await call("/pipelines", { method: "POST", headers: ip() })).status).toBe(404);
    // The API's unknown paths stay the API's 404.
    expect((await call("/health/nothing", { headers: ip() })).status).toBe(404);
  });

  it("answers HEAD like GET", async () => {
    const res = await call("/pipelines/p1", { method: "HEAD", headers: ip() });
    expect(res.status).toBe(200);
    expect(limited(res)).toEqual([true, true, true]);
  });
});
