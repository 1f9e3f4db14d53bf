// FHIR R4 REST API, mounted at /fhir/r4/:orgId. Thin: HTTP concerns only (content
// negotiation, headers, Prefer, status codes); everything else is the store's interaction
// dispatcher (FhirService). Operations ($name) and the guides' hooks come from the
// FhirExtensions the composition root builds.
import { refusalOf } from "../bundle-check";
import { bundleShapeIssues } from "../bundle-shape";
import { checkRetrieval } from "../retrieve-check";
import { refinedSearch } from "../search-refinement";
import { z } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import type { HttpEnv } from "../../../platform/http/http-env";
import type { Env } from "../../../platform/env";
import { badRequest, notFound, unsupportedMediaType } from "../../../platform/errors";
import { fhirBaseUrl } from "../../../platform/http/public-url";
import { declareAudit } from "../../../platform/http/route-audit";
import { createRouter } from "../../../platform/http/router";
import { AUDITED_BY_FHIR_STORE } from "../../audit";
import type { Principal } from "../../tenancy";
import { authorize } from "../../tenancy";
import type { AccessPolicy } from "../access-policy";
import { failureOf } from "../audit-trail";
import type { FhirExtensions } from "../extensions";
import type { Bundle, Resource, WriteResult } from "../port";
import type { FhirService } from "../service";
import { type GuideInteraction, recordGuideAudits } from "../guide-audit";
import { conditionalDeleteAt, conditionalUpdateAt, createAt, updateAt } from "../rest-writes";
import { parseVersion } from "../write-preconditions";
import { type C, checkAcceptable, fhirContent, send, versionHeaders } from "./fhir-http";
import { readResource } from "./fhir-format";
import { mountOperations } from "./operations";
import { binaryRepresentation, rawBinary } from "./binary-read";

export interface FhirRouterOptions {
  /** What implementation guides add: the operations, refinements, checks and audits the routes apply, and the store's own. */
  extensions: FhirExtensions;
  /** The access policy the store applies for a principal (access-policy.ts); the organization's (consent) when absent. */
  policyFor?: (env: Env, principal: Principal) => AccessPolicy;
}

/** Declares why the request reads (v3 ActReason codes, comma-separated: TREAT, ETREAT, BTG, HRESCH...); consent decides with it. */
export const PURPOSE_OF_USE_HEADER = "X-Purpose-Of-Use";

function purposesOfUse(header: string | undefined): string[] {
  if (!header?.trim()) return [];
  const codes = header.split(",").map((s) => s.trim()).filter(Boolean);
  const bad = codes.find((code) => !/^[A-Za-z][A-Za-z0-9_-]{0,31}$/.test(code));
  if (bad !== undefined || codes.length > 10) throw badRequest(`${PURPOSE_OF_USE_HEADER} takes up to 10 comma-separated v3 ActReason codes, got "${header.slice(0, 100)}"`);
  return codes;
}

/** Every REST interaction here is audited by the store itself (one AuditEvent each, docs/audit.md). */
const auditedByStore = declareAudit<HttpEnv>(AUDITED_BY_FHIR_STORE);

/** GET (and searches by POST) need fhir:read; anything that writes needs fhir:write. Operations check their own. */
const fhirPermission = createMiddleware<HttpEnv>(async (c, next) => {
  const readOnly = c.req.method === "GET" || c.req.method === "HEAD" || /\/_search$/.test(c.req.path);
  authorize(c.get("principal"), readOnly ? "fhir:read" : "fhir:write");
  await next();
});

export const negotiate = createMiddleware<HttpEnv>(async (c, next) => {
  checkAcceptable(c);
  await next();
});

/** Answers a write per Prefer: return=minimal | representation (default) | OperationOutcome. */
function sendWrite(c: C, result: WriteResult, base: string): Response {
  const r = result.resource;
  const status = result.outcome === "created" ? 201 : 200;
  const headers = versionHeaders(r);
  if (result.outcome !== "updated") headers.Location = `${base}/${r.resourceType}/${r.id}/_history/${r.meta?.versionId}`;
  const prefer = /return=([\w-]+)/i.exec(c.req.header("prefer") ?? "")?.[1]?.toLowerCase();
  if (prefer === "minimal") return send(c, status, null, headers);
  if (prefer === "operationoutcome") {
    return send(c, status, { resourceType: "OperationOutcome", issue: [{ severity: "information", code: "informational", diagnostics: `${result.outcome} ${r.resourceType}/${r.id}` }] }, headers);
  }
  return send(c, status, r, headers);
}

const strict = (c: C) => /handling=strict/i.test(c.req.header("prefer") ?? "");
const queryOf = (c: C) => new URL(c.req.url).searchParams;

async function searchBody(c: C): Promise<URLSearchParams> {
  const params = queryOf(c);
  const type = c.req.header("content-type") ?? "";
  if (type && !/application\/x-www-form-urlencoded/i.test(type)) throw unsupportedMediaType("POST _search takes application/x-www-form-urlencoded");
  for (const [k, v] of new URLSearchParams(new TextDecoder().decode(await c.req.arrayBuffer()))) params.append(k, v);
  return params;
}

export function fhirRouter(options: FhirRouterOptions) {
  const { extensions } = options;
  const routes = createRouter<HttpEnv>();
  const service = (c: C): FhirService => {
    const principal = c.get("principal");
    // The org's store as the composition root builds it (its access policy: consent enforcement).
    return c.get("ctx").fhir(principal, {
      extensions,
      baseUrl: fhirBaseUrl(c),
      waitUntil: (p) => c.executionCtx.waitUntil(p),
      purposeOfUse: purposesOfUse(c.req.header(PURPOSE_OF_USE_HEADER)),
      ...(options.policyFor ? { policy: options.policyFor(c.env, principal) } : {}),
    });
  };
  /** Runs an interaction a guide may audit as one of its transactions, and reports it, success or failure. */
  const guideAudited = async <T extends { status: number; body: Resource }>(c: C, s: FhirService, interaction: GuideInteraction, run: () => Promise<T>): Promise<T> => {
    const audits = extensions.guideAudits;
    if (audits.length === 0) return run();
    const about = { ...interaction, principal: c.get("principal"), baseUrl: s.baseUrl, clientAddress: c.req.header("cf-connecting-ip") };
    // The store's own AuditEvent and the guides' go to the audit queue in one send.
    return s.auditingTogether(async () => {
      try {
        const result = await run();
        await recordGuideAudits(audits, { ...about, outcome: result.status < 400 ? "0" : "4", response: result.body }, s);
        return result;
      } catch (e) {
        await recordGuideAudits(audits, { ...about, ...failureOf(e) }, s);
        throw e;
      }
    });
  };
  const search = async (c: C, type: string | undefined, params: URLSearchParams) => {
    const s = service(c);
    const { status, body } = await guideAudited(c, s, { kind: "search", type, params }, () => refinedSearch(extensions.searchRefinements, s, type, params, strict(c)));
    return send(c, status, body);
  };
  const history = async (c: C, scope: { type?: string; id?: string }) => send(c, 200, await service(c).history(scope, queryOf(c)));
  const write = async (c: C, run: (s: FhirService) => Promise<WriteResult>) => {
    const s = service(c);
    return sendWrite(c, await run(s), s.baseUrl);
  };
  const criteria = (c: C) => new URL(c.req.url).search.slice(1);

  // Operations first: /$name and /:type/$name would otherwise be searches and reads.
  mountOperations(routes, extensions.operations, service, guideAudited);
  // A Binary read asking for a non-FHIR type gets the raw document (ITI-68), before FHIR-only negotiation.
  routes.get("/Binary/:id", async (c, next) => {
    const id = c.req.param("id");
    if (id.startsWith("$") || binaryRepresentation(c.req.header("accept"), c.req.query("_format")) === "resource") return next();
    authorize(c.get("principal"), "fhir:read");
    const s = service(c);
    const { body, contentType, bytes } = await guideAudited(c, s, { kind: "binary-retrieve", id }, async () => {
      const binary = await s.read("Binary", id);
      await checkRetrieval(extensions.retrieveChecks, binary, s);
      return { status: 200, body: binary, ...rawBinary(binary, c.req.header("accept") ?? "*/*") };
    });
    return c.body(bytes, 200, { ...versionHeaders(body), "Content-Type": contentType });
  });
  routes.use("*", fhirPermission, negotiate);

  routes.get("/", (c) => search(c, undefined, queryOf(c)));
  routes.post("/", auditedByStore, async (c) => {
    const posted = await readResource(c);
    const s = service(c);
    // A Bundle of the wrong shape never reaches a guide's check or audit: the store refuses it (400) and audits that.
    if (bundleShapeIssues(posted).length) return send(c, 200, await s.batch(posted as Bundle));
    const bundle = posted as Bundle;
    const { status, body } = await guideAudited(c, s, { kind: "transaction", bundle }, async () => {
      const refusal = await refusalOf(extensions.bundleChecks, bundle, s);
      return refusal ?? { status: 200, body: (await s.batch(bundle)) as Resource };
    });
    return send(c, status, body);
  });
  routes.post("/_search", auditedByStore, async (c) => search(c, undefined, await searchBody(c)));
  routes.get("/_history", (c) => history(c, {}));

  routes.get("/:type", (c) => search(c, c.req.param("type"), queryOf(c)));
  routes.post("/:type", auditedByStore, async (c) => {
    const body = await readResource(c);
    return write(c, (s) => createAt(s, c.req.param("type"), body, c.req.header("if-none-exist")));
  });
  routes.put("/:type", auditedByStore, async (c) => {
    const body = await readResource(c);
    return write(c, (s) => conditionalUpdateAt(s, c.req.param("type"), criteria(c), body, c.req.header("if-match")));
  });
  routes.delete("/:type", auditedByStore, async (c) => {
    await conditionalDeleteAt(service(c), c.req.param("type"), criteria(c));
    return send(c, 204, null);
  });

  // Literal segments (_search, _history) are registered before /:type/:id so they win.
  routes.post("/:type/_search", auditedByStore, async (c) => search(c, c.req.param("type"), await searchBody(c)));
  routes.get("/:type/_history", (c) => history(c, { type: c.req.param("type") }));
  routes.get("/:type/:id/_history", (c) => history(c, { type: c.req.param("type"), id: c.req.param("id") }));

  routes.get("/:type/:id/_history/:vid", async (c) => {
    const { type, id, vid } = c.req.param();
    const r = await service(c).vread(type, id, vid);
    return send(c, 200, r, versionHeaders(r));
  });

  routes.get("/:type/:id", async (c) => {
    const { type, id } = c.req.param();
    if (id.startsWith("$")) throw notFound(`Unknown operation ${id} on ${type}`);
    const r = await service(c).read(type, id);
    const ifNoneMatch = c.req.header("if-none-match");
    if (ifNoneMatch && parseVersion(ifNoneMatch) === r.meta?.versionId) return send(c, 304, null, versionHeaders(r));
    return send(c, 200, r, versionHeaders(r));
  });

  routes.put("/:type/:id", auditedByStore, async (c) => {
    const { type, id } = c.req.param();
    const body = await readResource(c);
    return write(c, (s) => updateAt(s, type, id, body, c.req.header("if-match")));
  });

  routes.patch("/:type/:id", auditedByStore, async (c) => {
    const { type, id } = c.req.param();
    // JSON Patch, or FHIRPath Patch as a Parameters resource in FHIR JSON or XML.
    const ops = await readResource(c, /^application\/(json-patch\+json|fhir\+json|json)\b/i);
    return write(c, (s) => s.patch(type, id, ops, { ifMatch: c.req.header("if-match") }));
  });

  routes.delete("/:type/:id", auditedByStore, async (c) => {
    const { type, id } = c.req.param();
    await service(c).delete(type, id, { ifMatch: c.req.header("if-match") });
    return send(c, 204, null);
  });

  documentInteractions(routes);
  return routes;
}

// ---- OpenAPI: FHIR is generic over types, so each interaction is listed once with {type}/{id}.
const param = (name: string) => z.string().openapi({ param: { name, in: "path" } });
const paramsFor = (names: string[]) => z.object(Object.fromEntries(["orgId", ...names].map((n) => [n, param(n)])));

const DOCS: { method: "get" | "post" | "put" | "patch" | "delete"; operationId: string; path: string; summary: string; params: string[]; body?: boolean }[] = [
  { method: "post", operationId: "batchOrTransaction", path: "/", summary: "Batch or transaction Bundle", params: [], body: true },
  { method: "get", operationId: "searchSystem", path: "/", summary: "System-level search (_type, _id, _lastUpdated, _tag, ...)", params: [] },
  { method: "post", operationId: "searchSystemPost", path: "/_search", summary: "System-level search (form body)", params: [] },
  { method: "get", operationId: "historySystem", path: "/_history", summary: "System history", params: [] },
  { method: "get", operationId: "searchType", path: "/{type}", summary: "Search (all R4 search parameters, chaining, _has, _include, _revinclude, _sort, paging)", params: ["type"] },
  { method: "post", operationId: "create", path: "/{type}", summary: "Create (If-None-Exist for conditional create)", params: ["type"], body: true },
  { method: "put", operationId: "conditionalUpdate", path: "/{type}", summary: "Conditional update (search criteria in the query)", params: ["type"], body: true },
  { method: "delete", operationId: "conditionalDelete", path: "/{type}", summary: "Conditional delete", params: ["type"] },
  { method: "post", operationId: "searchTypePost", path: "/{type}/_search", summary: "Search (form body)", params: ["type"] },
  { method: "get", operationId: "historyType", path: "/{type}/_history", summary: "Type history (_since, _count)", params: ["type"] },
  { method: "get", operationId: "read", path: "/{type}/{id}", summary: "Read (410 when deleted)", params: ["type", "id"] },
  { method: "put", operationId: "update", path: "/{type}/{id}", summary: "Update or create-on-update (If-Match)", params: ["type", "id"], body: true },
  { method: "patch", operationId: "patch", path: "/{type}/{id}", summary: "JSON Patch (application/json-patch+json) or FHIRPath Patch (Parameters)", params: ["type", "id"] },
  { method: "delete", operationId: "delete", path: "/{type}/{id}", summary: "Delete (soft; If-Match)", params: ["type", "id"] },
  { method: "get", operationId: "historyInstance", path: "/{type}/{id}/_history", summary: "Instance history", params: ["type", "id"] },
  { method: "get", operationId: "vread", path: "/{type}/{id}/_history/{vid}", summary: "Version read", params: ["type", "id", "vid"] },
];

function documentInteractions(router: ReturnType<typeof createRouter<HttpEnv>>): void {
  router.openAPIRegistry.registerPath({
    method: "get",
    path: "/Binary/{id}",
    operationId: "retrieveDocument",
    tags: ["FHIR R4"],
    summary: "Binary read / IHE MHD ITI-68 Retrieve Document: the raw document in its own content type when Accept names it (or */*), the Binary resource for a FHIR JSON Accept; 406 when Accept admits neither",
    security: [{ bearerAuth: [], organizationId: [] }],
    request: { params: paramsFor(["id"]) },
    responses: {
      200: { description: "The document's bytes (Content-Type: the Binary's contentType), or the Binary resource", content: { "*/*": { schema: z.string().openapi({ format: "binary" }) }, ...fhirContent } },
      404: { description: "Unknown (OperationOutcome)", content: fhirContent },
      406: { description: "Accept admits neither the document's type nor FHIR JSON (OperationOutcome)", content: fhirContent },
      410: { description: "Deleted, or (IHE MHD, the organization's mhd_superseded_gone) the document of superseded DocumentReferences only (OperationOutcome)", content: fhirContent },
    },
  });
  for (const d of DOCS) {
    router.openAPIRegistry.registerPath({
      method: d.method,
      path: d.path,
      operationId: d.operationId,
      tags: ["FHIR R4"],
      summary: d.summary,
      security: [{ bearerAuth: [], organizationId: [] }],
      request: { params: paramsFor(d.params), ...(d.body ? { body: { content: fhirContent } } : {}) },
      responses: {
        200: { description: "FHIR resource or Bundle", content: fhirContent },
        ...(d.method === "post" || d.method === "put" ? { 201: { description: "Created", content: fhirContent } } : {}),
        400: { description: "OperationOutcome", content: fhirContent },
      },
    });
  }
}

/**
 * FHIR clients address the base as "[base]/" (batch/transaction POST, system search); Hono's
 * strict routing would miss it, so the Worker entry drops that one trailing slash first.
 */
export function normalizeFhirBase(request: Request): Request {
  const url = new URL(request.url);
  if (!/^\/fhir\/r4\/[^/]+\/$/.test(url.pathname)) return request;
  url.pathname = url.pathname.slice(0, -1);
  return new Request(url, request);
}
