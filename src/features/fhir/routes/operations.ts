// Serves and documents the registered FHIR operations: one route per (name, level, method),
// which finds the declaration for the URL's type, checks Accept and the permission, parses
// the query with the operation's schema, reads the body as declared and runs the handler.
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { HttpEnv } from "../../../platform/http/http-env";
import { badRequest, notFound } from "../../../platform/errors";
import { requestPath, requestUrl } from "../../../platform/http/public-url";
import { declareAudit } from "../../../platform/http/route-audit";
import { zodDetails } from "../../../platform/http/router";
import { AUDITED_BY_FHIR_STORE } from "../../audit";
import { authorize } from "../../tenancy";
import type { AnyOperation, OperationLevel } from "../operations/operation";
import type { OperationRegistry, OperationRoute } from "../operations/registry";
import type { RouteAudit } from "../../../platform/http/route-audit";
import type { GuideInteraction } from "../guide-audit";
import type { Resource } from "../port";
import type { FhirService } from "../service";
import { type C, checkAcceptable, fhirContent, queryRecord, send } from "./fhir-http";
import { readOptionalResource, readResource } from "./fhir-format";

const HONO_PATHS: Record<OperationLevel, (name: string) => string> = {
  system: (name) => `/$${name}`,
  type: (name) => `/:type/$${name}`,
  instance: (name) => `/:type/:id/$${name}`,
};

async function readInput(c: C, op: AnyOperation): Promise<unknown> {
  if (c.req.method !== "POST" || op.input === "none") return undefined;
  const body = op.input === "resource" ? await readResource(c) : await readOptionalResource(c);
  // JSON that parses but is no resource (null, a number, an array) never reaches a handler.
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw badRequest(`The body of $${op.name} must be a FHIR resource (a JSON object with a resourceType)`);
  return body;
}

/** Runs an operation so the implementation guides can audit it (routes/fhir.ts: guideAudited). */
export type OperationAuditor = (c: C, store: FhirService, interaction: GuideInteraction, run: () => Promise<{ status: number; body: Resource }>) => Promise<{ status: number; body: Resource }>;

/** Registers every operation route; call before the routes whose /:type and /:type/:id would match `$name`. */
export function mountOperations(router: OpenAPIHono<HttpEnv>, registry: OperationRegistry, storeOf: (c: C) => FhirService, audited: OperationAuditor = (_c, _s, _i, run) => run()): void {
  for (const route of registry.routes()) {
    router.on(route.method, HONO_PATHS[route.level](route.name), declareAudit<HttpEnv>(auditOf(registry, route)), async (c) => {
      const type = route.level === "system" ? undefined : c.req.param("type");
      const op = registry.find(route.name, route.level, type);
      if (!op) throw notFound(`Unknown operation $${route.name} on ${type}`);
      if (!op.negotiatesItself) checkAcceptable(c);
      const principal = c.get("principal");
      authorize(principal, op.permission);
      const query = new URL(c.req.url).searchParams;
      const parsed = op.parameters.safeParse(queryRecord(query));
      if (!parsed.success) throw badRequest(`Invalid parameters for $${op.name}`, zodDetails(parsed.error));
      const store = storeOf(c);
      const id = route.level === "instance" ? c.req.param("id") : undefined;
      const body = await readInput(c, op);
      let headers: Record<string, string> | undefined;
      const { status, body: answer } = await audited(c, store, { kind: "operation", name: op.name, ...(type !== undefined ? { type } : {}), ...(id !== undefined ? { id } : {}), params: query, body }, async () => {
        const result = await op.handler({
          store,
          env: c.env,
          principal,
          limits: c.get("limits"),
          level: route.level,
          ...(type !== undefined ? { type } : {}),
          ...(id !== undefined ? { id } : {}),
          params: parsed.data,
          body,
          request: { method: route.method, url: requestUrl(c), path: requestPath(c), headers: c.req.raw.headers },
        });
        headers = result.headers;
        return { status: result.status ?? 200, body: (result.body ?? null) as Resource };
      });
      return send(c, status, answer, headers);
    });
  }
  documentOperations(router, registry);
}

/** The audit every operation answering the route declares; they must agree, since the route declares one. */
function auditOf(registry: OperationRegistry, route: OperationRoute): RouteAudit {
  const audits = registry.operations.filter((op) => op.name === route.name && op.levels.includes(route.level) && op.methods.includes(route.method)).map((op) => op.audit ?? AUDITED_BY_FHIR_STORE);
  const first = audits[0] ?? AUDITED_BY_FHIR_STORE;
  if (audits.some((a) => JSON.stringify(a) !== JSON.stringify(first))) throw new Error(`The operations answering ${route.method} $${route.name} (${route.level}) declare different audits`);
  return first;
}

// ---- OpenAPI: one path per operation, level and type (a type-generic operation as {type}).
const DEFAULT_RESPONSES = { 200: "FHIR resource or Bundle" };
const pathParam = (name: string) => z.string().openapi({ param: { name, in: "path" } });

function documentedPaths(op: AnyOperation, level: OperationLevel): { path: string; params: string[] }[] {
  if (level === "system") return [{ path: `/$${op.name}`, params: [] }];
  const types = op.types === "*" ? ["{type}"] : op.types;
  return types.map((t) => ({
    path: level === "type" ? `/${t}/$${op.name}` : `/${t}/{id}/$${op.name}`,
    params: [...(t === "{type}" ? ["type"] : []), ...(level === "instance" ? ["id"] : [])],
  }));
}

/** e.g. validateType, everythingInstancePatient, exportSystemPost (POST named only beside a GET). */
function operationIdOf(op: AnyOperation, level: OperationLevel, path: string, method: "GET" | "POST"): string {
  const type = path.split("/")[1] ?? "";
  const words = [op.name, level, type.startsWith("{") || level === "system" ? "" : type, method === "POST" && op.methods.includes("GET") ? "Post" : ""];
  return words.map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1))).join("");
}

function documentOperations(router: OpenAPIHono<HttpEnv>, registry: OperationRegistry): void {
  for (const op of registry.operations) {
    for (const level of op.levels) {
      for (const { path, params } of documentedPaths(op, level)) {
        for (const method of op.methods) {
          const body =
            method === "POST" && op.input !== "none"
              ? { body: { required: op.input === "resource", content: fhirContent } }
              : {};
          router.openAPIRegistry.registerPath({
            method: method === "GET" ? "get" : "post",
            path,
            operationId: operationIdOf(op, level, path, method),
            tags: ["FHIR R4 operations"],
            summary: op.summary,
            description: `$${op.name} (${op.definition}); needs ${op.permission}.`,
            security: [{ bearerAuth: [], organizationId: [] }],
            request: {
              params: z.object(Object.fromEntries(["orgId", ...params].map((n) => [n, pathParam(n)]))),
              ...(op.parameters instanceof z.ZodObject ? { query: op.parameters } : {}),
              ...(op.headers ? { headers: op.headers } : {}),
              ...body,
            },
            responses: {
              ...Object.fromEntries(
                Object.entries(op.responses ?? DEFAULT_RESPONSES).map(([status, description]) => [status, { description, ...(status === "200" ? { content: fhirContent } : {}) }]),
              ),
              400: { description: "OperationOutcome", content: fhirContent },
            },
          });
        }
      }
    }
  }
}
