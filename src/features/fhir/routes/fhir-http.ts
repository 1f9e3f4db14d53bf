// HTTP concerns the FHIR routes and the operation routes share: content negotiation, reading
// a body, answering FHIR JSON, version headers.
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../../app-env";
import { badRequest, notAcceptable, unsupportedMediaType } from "../../../platform/errors";
import { fhirJsonContentType } from "../../../platform/http/fhir-json";
import type { Resource } from "../port";

export type C = Context<AppEnv>;

/** JSON only: an explicit request for XML (by _format or Accept) is answered 406. */
export function checkAcceptable(c: C): void {
  const format = c.req.query("_format");
  if (format && !/json/i.test(format)) throw notAcceptable(`_format ${format} is not supported; use application/fhir+json`);
  const accept = c.req.header("accept");
  if (accept && /xml/i.test(accept) && !/json|\*\/\*/i.test(accept)) throw notAcceptable("Only application/fhir+json is supported");
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

export async function readJson(c: C, types = /^application\/(fhir\+)?json\b/i): Promise<unknown> {
  const type = c.req.header("content-type") ?? "";
  if (!types.test(type)) throw unsupportedMediaType(`Content-Type must be application/fhir+json, got ${type ? `"${type}"` : "none"}`);
  try {
    return await c.req.json();
  } catch {
    throw badRequest("The body is not valid JSON");
  }
}

/** An optional Parameters body, whatever its Content-Type: empty is an empty Parameters. */
export async function readParameters(c: C): Promise<unknown> {
  const text = await c.req.text();
  if (!text.trim()) return { resourceType: "Parameters" };
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest("The body is not valid JSON");
  }
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
export const fhirContent = { "application/fhir+json": { schema: FhirResource } };
