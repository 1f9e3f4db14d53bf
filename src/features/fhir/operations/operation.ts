// The contract of a FHIR operation ($name): declared once, it is served by the FHIR routes,
// listed in the CapabilityStatement and described in the OpenAPI document (registry.ts).
// The store's own operations are in core.ts; other features and standards declare theirs
// beside their code and the composition root (src/main/plugins.ts) lists them all.
import type { z } from "@hono/zod-openapi";
import type { Env } from "../../../platform/env";
import type { RouteAudit } from "../../../platform/http/route-audit";
import type { Principal } from "../../tenancy";
import type { Limits } from "../../tenancy";
import type { Resource } from "../port";
import type { FhirService } from "../service";

/** system: [base]/$name; type: [base]/Type/$name; instance: [base]/Type/id/$name. */
export type OperationLevel = "system" | "type" | "instance";

/** The permission a call needs: reading, writing, or running an export. */
export type OperationPermission = "fhir:read" | "fhir:write" | "export:run";

/**
 * What a POST carries: a resource (application/fhir+json, 415 otherwise), an optional Parameters
 * resource (any content type, an empty body is an empty Parameters), or nothing the operation reads.
 */
export type OperationInput = "resource" | "parameters" | "none";

export interface OperationCall<P> {
  /** The organization's FHIR store for the calling principal (its audits, policy and base URL). */
  store: FhirService;
  env: Env;
  principal: Principal;
  limits: Limits;
  level: OperationLevel;
  /** The resource type in the URL (type and instance level). */
  type?: string;
  /** The resource id in the URL (instance level). */
  id?: string;
  /** The URL's query parameters, parsed by the operation's schema. */
  params: P;
  /** The POST body as `input` says (undefined for GET and for input "none"). */
  body: unknown;
  request: {
    method: "GET" | "POST";
    /** The request URL on the public base (what a manifest echoes). */
    url: string;
    /** Path and query as routed (what an audit records). */
    path: string;
    headers: Headers;
  };
}

export interface OperationResponse {
  /** 200 by default. */
  status?: number;
  /** A FHIR resource, or nothing (a 202 kick-off, a 204). */
  body?: Resource;
  headers?: Record<string, string>;
}

export interface FhirOperation<P = Record<string, unknown>> {
  /** The URL name, without "$". */
  name: string;
  /** The name the CapabilityStatement lists it under (the OperationDefinition's code by default: `name`). */
  capabilityName?: string;
  /** Canonical URL of its OperationDefinition. */
  definition: string;
  /** A CapabilityStatement the server instantiates by offering it (an implementation guide's). */
  instantiates?: string;
  levels: OperationLevel[];
  /** Resource types it applies to at type and instance level ("*": all). */
  types: readonly string[] | "*";
  methods: readonly ("GET" | "POST")[];
  permission: OperationPermission;
  input: OperationInput;
  /** Query parameters (zod): validated before the handler (400 OperationOutcome) and described in OpenAPI. */
  parameters: z.ZodType<P>;
  /** Request headers it reads (described in OpenAPI only: the handler reads `request.headers`). */
  headers?: z.ZodObject;
  /** True when the operation answers Accept itself (Bulk Data kick-off: 400 rather than 406). */
  negotiatesItself?: boolean;
  summary: string;
  /** Documented answers besides 200 and 400 (OpenAPI), by status. */
  responses?: Record<number, string>;
  /**
   * The audit of its route beyond the FHIR store's own AuditEvent (features/audit/declarations.ts):
   * a management action such as export.start. Absent: the store's AuditEvent is the whole record.
   */
  audit?: RouteAudit;
  handler(call: OperationCall<P>): Promise<OperationResponse>;
}

/** Declares an operation, inferring its parameters' type from the schema. */
export function defineOperation<P>(operation: FhirOperation<P>): FhirOperation<P> {
  return operation;
}

/** An operation of any parameters, as the registry holds them. */
// biome-ignore lint/suspicious/noExplicitAny: handlers are checked against their own schema by defineOperation
export type AnyOperation = FhirOperation<any>;
