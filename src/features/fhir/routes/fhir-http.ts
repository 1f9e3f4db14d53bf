// HTTP concerns the FHIR routes and the operation routes share: content negotiation, answering
// FHIR JSON (fhir-format.ts rewrites it as XML when asked), version headers.
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { HttpEnv } from "../../../platform/http/http-env";
import { fhirJsonContentType } from "../../../platform/http/fhir-json";
import type { Resource } from "../port";
import { responseFormat } from "./fhir-format";

export type C = Context<HttpEnv>;

/** 406 when `_format` or Accept admits neither FHIR JSON nor FHIR XML (fhir-format.ts). */
export function checkAcceptable(c: C): void {
  responseFormat(c);
}

export function send(c: C, status: number, body: unknown, headers: Record<string, string> = {}): Response {
  for (const [k, v] of Object.entries(headers)) c.header(k, v);
  if (body === null) return c.body(null, status as 204);
  c.header("Content-Type", fhirJsonContentType(c.req.header("accept")));
  return c.body(JSON.stringify(body), status as 200);
}

export function versionHeaders(r: Resource): Record<string, string> {
  const h: Record<string, string> = {};
  if (r.meta?.versionId) h.ETag = `W/"${r.meta.versionId}"`;
  if (r.meta?.lastUpdated) h["Last-Modified"] = new Date(r.meta.lastUpdated).toUTCString();
  return h;
}

/** The query as a record: a repeated parameter is an array of its values. */
export function queryRecord(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null);
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    out[key] = values.length === 1 ? values[0]! : values;
  }
  return out;
}

/** Any FHIR resource, as the OpenAPI document describes request and response bodies. */
const FhirResource = z.object({ resourceType: z.string() }).passthrough().openapi("FhirResource");
export const fhirContent = { "application/fhir+json": { schema: FhirResource }, "application/fhir+xml": { schema: FhirResource } };
