// /api/v1/access-policies: administrators (policies:manage) define the organization's access
// policies (rules narrowing what a credential reaches in the FHIR store) and assign them to API
// keys, users and client applications (PUT/DELETE .../assignments/{kind}/{principal_id}).
import { createRoute } from "@hono/zod-openapi";
import type { HttpEnv } from "../../../platform/http/http-env";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, conflictError, errorResponse, json, notFoundError, pageOf, PageQuery, security } from "../../../platform/http/schemas";
import { audited, byId, newId } from "../../audit";
import { requirePermission } from "../../tenancy";
import { AccessPolicyBody, AccessPolicyDetailSchema, AccessPolicySchema, AssignmentParams, AssignmentSchema, PolicyIdParam, presentPolicy } from "../schemas";
import { assignPolicy, createPolicy, deletePolicy, getPolicyDetail, listPolicies, replacePolicy, unassignPolicy } from "../use-cases/policies";

const admin = requirePermission("policies:manage");
const tags = ["Access policies"];
const invalidRules = { 422: errorResponse("Invalid rules: an unknown resource type, criteria the search parser or the matcher refuses, a bad compartment or field path (each in details)") };
const cookieSecurity = [...security, { consoleSession: [] }];

const presentAssignment = (a: { kind: "api-keys" | "users" | "client-applications"; id: string; name: string; accessPolicyId: string | null }) => ({ access_policy_id: a.accessPolicyId, kind: a.kind, id: a.id, name: a.name });

export const accessPolicyRoutes = createRouter<HttpEnv>()
  .openapi(
    createRoute({
      method: "get",
      operationId: "listAccessPolicies",
      path: "/",
      tags,
      summary: "List the organization's access policies",
      security: cookieSecurity,
      middleware: admin,
      request: { query: PageQuery },
      responses: { 200: { description: "Page of access policies", content: json(pageOf("access_policies", AccessPolicySchema)) }, ...commonErrors },
    }),
    async (c) => {
      const { limit, offset } = c.req.valid("query");
      const { rows, total } = await listPolicies(c.get("ctx"), limit, offset);
      return c.json({ access_policies: rows.map(presentPolicy), total_count: total }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "post",
      operationId: "createAccessPolicy",
      path: "/",
      audit: audited("access_policy.create", newId),
      tags,
      summary: "Create an access policy",
      security: cookieSecurity,
      middleware: admin,
      request: { body: { required: true, content: json(AccessPolicyBody) } },
      responses: { 201: { description: "Created", content: json(AccessPolicySchema) }, ...commonErrors, ...invalidRules },
    }),
    async (c) => c.json(presentPolicy(await createPolicy(c.get("ctx"), c.get("principal"), c.req.valid("json"))), 201),
  )
  .openapi(
    createRoute({
      method: "get",
      operationId: "getAccessPolicy",
      path: "/{id}",
      tags,
      summary: "Get an access policy and who acts under it",
      security: cookieSecurity,
      middleware: admin,
      request: { params: PolicyIdParam },
      responses: { 200: { description: "Access policy", content: json(AccessPolicyDetailSchema) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      const { row, assignees } = await getPolicyDetail(c.get("ctx"), c.req.valid("param").id);
      return c.json({ ...presentPolicy(row), assigned_to: assignees }, 200);
    },
  )
  .openapi(
    createRoute({
      method: "put",
      operationId: "replaceAccessPolicy",
      path: "/{id}",
      audit: audited("access_policy.update", byId),
      tags,
      summary: "Replace an access policy's name, description and rules (applies to its holders within 10 seconds)",
      security: cookieSecurity,
      middleware: admin,
      request: { params: PolicyIdParam, body: { required: true, content: json(AccessPolicyBody) } },
      responses: { 200: { description: "Access policy", content: json(AccessPolicySchema) }, ...commonErrors, ...notFoundError, ...invalidRules },
    }),
    async (c) => c.json(presentPolicy(await replacePolicy(c.get("ctx"), c.get("principal"), c.req.valid("param").id, c.req.valid("json"))), 200),
  )
  .openapi(
    createRoute({
      method: "delete",
      operationId: "deleteAccessPolicy",
      path: "/{id}",
      audit: audited("access_policy.delete", byId),
      tags,
      summary: "Delete an access policy (409 while it is assigned)",
      security: cookieSecurity,
      middleware: admin,
      request: { params: PolicyIdParam },
      responses: { 200: { description: "The deleted access policy", content: json(AccessPolicySchema) }, ...commonErrors, ...notFoundError, ...conflictError },
    }),
    async (c) => c.json(presentPolicy(await deletePolicy(c.get("ctx"), c.req.valid("param").id)), 200),
  )
  .openapi(
    createRoute({
      method: "put",
      operationId: "assignAccessPolicy",
      path: "/{id}/assignments/{kind}/{principal_id}",
      audit: audited("access_policy.assign", byId),
      tags,
      summary: "Make an API key, a user or a client application act under the policy (replacing any other)",
      description:
        "An API key's change applies at once in this isolate and within 10 seconds in others; a user's at their next request; a client application's to the tokens issued after it (those issued before keep their policy until they expire, 5 minutes at most).",
      security: cookieSecurity,
      middleware: admin,
      request: { params: AssignmentParams },
      responses: { 200: { description: "The assignment", content: json(AssignmentSchema) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      const { id, kind, principal_id } = c.req.valid("param");
      return c.json(presentAssignment(await assignPolicy(c.get("ctx"), id, kind, principal_id)), 200);
    },
  )
  .openapi(
    createRoute({
      method: "delete",
      operationId: "unassignAccessPolicy",
      path: "/{id}/assignments/{kind}/{principal_id}",
      audit: audited("access_policy.unassign", byId),
      tags,
      summary: "Stop an API key, a user or a client application acting under the policy",
      security: cookieSecurity,
      middleware: admin,
      request: { params: AssignmentParams },
      responses: { 200: { description: "The assignment, its access_policy_id now null", content: json(AssignmentSchema) }, ...commonErrors, ...notFoundError },
    }),
    async (c) => {
      const { id, kind, principal_id } = c.req.valid("param");
      return c.json(presentAssignment(await unassignPolicy(c.get("ctx"), id, kind, principal_id)), 200);
    },
  );
