// Every route that changes state declares its audit where it is defined, and the declaration holds:
// each route of the app by POST, PUT, PATCH or DELETE carries one (a route without one fails here,
// and an OpenAPI route without one is refused by the router factory); every route declared
// `audited` leaves an AuditEvent naming its action when it is called; the declarations name real
// actions and the route's own path parameters. The routes whose use case records the action
// (console sign-in, the operator's organization move) and the admin CLI's commands on the
// databases leave theirs too.
import { createRoute } from "@hono/zod-openapi";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { cliAuditSql } from "../../scripts/lib/cli-audit";
import { buildApp } from "../../src/main/app";
import { MANAGEMENT_ACTIONS } from "../../src/features/audit/actions";
import { type AuditDeclaration, declarationOf } from "../../src/features/audit/declarations";
import { changesState, declaredAuditOf } from "../../src/platform/http/route-audit";
import { createRouter } from "../../src/platform/http/router";
import { eventually } from "../support/eventually";
import { call, createKey, createTenant, type Tenant } from "../support/tenants";

interface DeclaredRoute {
  method: string;
  path: string;
  audit?: AuditDeclaration;
}

/** Each (method, path) the app serves once, with the audit its handlers declare. */
function servedRoutes(): DeclaredRoute[] {
  const routes = new Map<string, DeclaredRoute>();
  for (const r of buildApp().routes) {
    if (r.method === "ALL" || r.path.endsWith("*")) continue;
    const key = `${r.method} ${r.path}`;
    const route = routes.get(key) ?? { method: r.method, path: r.path };
    const declared = declaredAuditOf(r.handler);
    if (declared) route.audit = declarationOf(declared);
    routes.set(key, route);
  }
  return [...routes.values()];
}

const paramsOf = (path: string) => [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
/** Where the management audit middleware runs (src/main/app.ts): an `audited` route anywhere else would record nothing. */
const underAuditMiddleware = (path: string) => path.startsWith("/api/") || path.startsWith("/fhir/r4/:orgId/");

describe("route audit declarations", () => {
  const routes = servedRoutes();

  it("every route that changes state declares its audit", () => {
    const stateChanging = routes.filter((r) => changesState(r.method));
    expect(stateChanging.length).toBeGreaterThan(100);
    expect(stateChanging.filter((r) => !r.audit).map((r) => `${r.method} ${r.path}`)).toEqual([]);
  });

  it("each declaration names a real action, the route's own parameters, and why when nothing is recorded", () => {
    const wrong: string[] = [];
    for (const { method, path, audit } of routes) {
      if (!audit) continue;
      const where = `${method} ${path}`;
      switch (audit.kind) {
        case "audited":
          if (!(audit.action in MANAGEMENT_ACTIONS)) wrong.push(`${where}: unknown action ${audit.action}`);
          if (audit.entity && "param" in audit.entity && !paramsOf(path).includes(audit.entity.param)) wrong.push(`${where}: no path parameter ${audit.entity.param}`);
          if (!underAuditMiddleware(path)) wrong.push(`${where}: outside the audit middleware; record it in the use case (auditedInside)`);
          break;
        case "audited-inside":
          if (!(audit.action in MANAGEMENT_ACTIONS)) wrong.push(`${where}: unknown action ${audit.action}`);
          break;
        case "not-audited":
          if (audit.why.trim().length < 20) wrong.push(`${where}: say why it is not audited`);
          break;
        case "fhir":
          if (!path.startsWith("/fhir/r4/:orgId") && !path.startsWith("/api/")) wrong.push(`${where}: not a FHIR store route`);
          break;
        default:
          wrong.push(`${where}: unknown declaration ${JSON.stringify(audit)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("the router factory refuses a state-changing OpenAPI route without a declaration", () => {
    const route = createRoute({ method: "post", path: "/nothing-declared", responses: { 204: { description: "Nothing" } } });
    expect(() => createRouter().openapi(route, (c) => c.body(null, 204))).toThrow(/POST \/nothing-declared declares no audit/);
  });
});

interface Listed {
  subtype: { system: string; code: string }[];
  outcome: string;
  entity: { detail?: { type: string; valueString: string }[] }[];
}

async function listedSince(t: Tenant, since: string): Promise<Listed[]> {
  const all: Listed[] = [];
  for (let offset = 0; offset < 900; offset += 100) {
    const res = await t.fetch(`/api/audit?since=${encodeURIComponent(since)}&limit=100&offset=${offset}`);
    expect(res.status).toBe(200);
    const page = ((await res.json()) as { audit_events: Listed[] }).audit_events;
    all.push(...page);
    if (page.length < 100) break;
  }
  return all;
}

const detailOf = (e: Listed, type: string) => e.entity[0]?.detail?.find((d) => d.type === type)?.valueString;
const actionOf = (e: Listed) => e.subtype.find((s) => s.system === "urn:cdis:management-action")?.code;

describe("audited routes", () => {
  it("each one leaves an AuditEvent naming its declared action, refused requests included", { timeout: 60_000 }, async () => {
    const t = await createTenant();
    const audited = servedRoutes().filter((r) => r.audit?.kind === "audited");
    expect(audited.length).toBeGreaterThan(60);
    const since = new Date(Date.now() - 1000).toISOString();
    // Unknown ids and empty bodies: refused (400/404/409), so nothing in the org changes.
    const calls = audited.map((r) => {
      const path = r.path.replace(/:(\w+)/g, (_, name: string) => (name === "orgId" ? t.orgId : `no-such-${name.toLowerCase()}`));
      return { route: r, path, method: r.method };
    });
    for (const c of calls) {
      const res = await t.fetch(c.path, { method: c.method, ...(c.method === "GET" || c.method === "DELETE" ? {} : { json: {} }) });
      await res.arrayBuffer();
      expect(res.status, `${c.method} ${c.path}`).toBeLessThan(500);
    }
    const recorded = (events: Listed[]) => (c: (typeof calls)[number]) =>
      events.some((e) => actionOf(e) === (c.route.audit as { action: string }).action && detailOf(e, "method") === c.method && detailOf(e, "path") === c.path);
    const events = await eventually(() => listedSince(t, since), (l) => calls.every(recorded(l)), 30_000);
    expect(calls.filter((c) => !recorded(events)(c)).map((c) => `${c.method} ${c.path}`)).toEqual([]);
  });

  it("PUT /api/ihe/settings records ihe_settings.update, the organization as entity", async () => {
    const t = await createTenant();
    expect((await t.fetch("/api/ihe/settings", { method: "PUT", json: { mhd_strict: true } })).status).toBe(200);
    const [event] = await eventually(
      async () => ((await (await t.fetch("/api/audit?action=ihe_settings.update")).json()) as { audit_events: (Listed & { agent: { altId: string }[]; entity: { type: { code: string }; what?: { identifier: { value: string } } }[] })[] }).audit_events,
      (l) => l.length > 0,
    );
    expect(event).toMatchObject({ outcome: "0", agent: [{ altId: t.keyId }], entity: [{ type: { code: "ihe_settings" }, what: { identifier: { value: t.orgId } } }] });
  });
});

interface Event extends Listed {
  outcomeDesc?: string;
  agent: { altId: string; who: { display?: string } }[];
  entity: { type: { code: string }; what?: { identifier: { value: string } }; detail?: { type: string; valueString: string }[] }[];
}

const eventsOf = async (t: Tenant, action: string, done: (l: Event[]) => boolean = (l) => l.length > 0) =>
  eventually(async () => ((await (await t.fetch(`/api/audit?action=${action}`)).json()) as { audit_events: Event[] }).audit_events, done);

describe("actions recorded inside their use case", () => {
  it("console sign-in (refused for a service key) and sign-out", async () => {
    const t = await createTenant();
    const signIn = (key: string) => call("/api/v1/console/session", { method: "POST", json: { organization_id: t.orgId, api_key: key } });
    const signedIn = await signIn(t.key);
    expect(signedIn.status).toBe(201);
    const service = await createKey(t.orgId, "service");
    expect((await signIn(service.key)).status).toBe(403);
    const session = (signedIn.headers.get("set-cookie") ?? "").split(";")[0]!;
    expect((await call("/api/v1/console/session", { method: "DELETE", headers: { cookie: session, "x-cdis-console": "1" } })).status).toBe(204);

    const signIns = await eventsOf(t, "console_session.sign_in", (l) => l.length >= 2);
    expect(signIns.map((e) => [e.agent[0]?.altId, e.outcome])).toEqual(expect.arrayContaining([[t.keyId, "0"], [service.keyId, "4"]]));
    expect(signIns.find((e) => e.outcome === "4")?.outcomeDesc).toContain("FORBIDDEN");
    expect(JSON.stringify(signIns)).not.toContain(t.key);
    const [signOut] = await eventsOf(t, "console_session.sign_out");
    expect(signOut).toMatchObject({ outcome: "0", agent: [{ altId: t.keyId }], entity: [{ type: { code: "console_session" } }] });
  });

  it("an organization move, refused or started, names the operator and the shards", { timeout: 60_000 }, async () => {
    const t = await createTenant();
    const move = (shard: string) => call(`/admin/organizations/${t.orgId}/move`, { method: "POST", json: { shard }, headers: { authorization: `Bearer ${env.OPERATOR_TOKEN}` } });
    expect((await move("SHARD_9")).status).toBe(404);
    const to = t.shard === "SHARD_0" ? "SHARD_1" : "SHARD_0";
    expect((await move(to)).status).toBe(202);
    const events = await eventsOf(t, "organization.move", (l) => l.length >= 2);
    const detail = (e: Event) => Object.fromEntries((e.entity[0]?.detail ?? []).map((d) => [d.type, d.valueString]));
    const started = events.find((e) => e.outcome === "0");
    expect(started).toMatchObject({ agent: [{ altId: "operator" }], entity: [{ type: { code: "organization" }, what: { identifier: { value: t.orgId } } }] });
    expect(detail(started!)).toMatchObject({ from: t.shard, to });
    expect(events.find((e) => e.outcome === "4")?.outcomeDesc).toContain("SHARD_9");
  });
});

describe("the admin CLI's AuditEvents", () => {
  it("appended to the organization's pending log as the CLI writes them, are listed like the API's, the operator as agent", async () => {
    const t = await createTenant();
    const other = await createTenant();
    await t.ctx.d1.prepare(cliAuditSql(t.orgId, { action: "api_key.create", entityId: "key-from-cli", outcome: "0", detail: { command: "create-key" } })).run();
    const [event] = await eventsOf(t, "api_key.create", (l) => l.some((e) => e.entity[0]?.what?.identifier.value === "key-from-cli"));
    expect(event).toMatchObject({ outcome: "0", agent: [{ altId: "operator", who: { display: "admin CLI (database)" } }], entity: [{ type: { code: "api_key" }, what: { identifier: { value: "key-from-cli" } } }] });
    expect(event!.subtype[0]).toMatchObject({ code: "110137" });
    // Only the organization it names sees it.
    expect(await eventsOf(other, "api_key.create", () => true)).toEqual([]);
  });
});
