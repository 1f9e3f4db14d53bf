// FHIR's two formats on the REST API (R4 http.html#mime-type): request bodies in JSON or XML by
// Content-Type (415 otherwise); answers in the format `_format` names, else the one Accept prefers,
// else the request body's, else JSON (406 when `_format` or Accept admits neither). JSON stays the
// hot path: a request that mentions no XML never loads the XML code (../xml is imported on demand).
import type { Context, MiddlewareHandler } from "hono";
import { parseAccept } from "hono/utils/accept";
import { ApiError, badRequest, notAcceptable, unsupportedMediaType } from "../../../platform/errors";
import { parseBoundedJson, tooDeep, valueTooDeep } from "../../../platform/http/body-depth";
import { lookupTable } from "../../../platform/object-keys";

export type FhirFormat = "json" | "xml";

const JSON_BODY = /^application\/(fhir\+json|json\+fhir|json)\b/i;
const XML_BODY = /^(application\/(fhir\+xml|xml\+fhir|xml)|text\/xml)\b/i;
const MEDIA_TYPES: Record<string, FhirFormat> = {
  "application/json": "json",
  "application/fhir+json": "json",
  "application/json+fhir": "json",
  "text/xml": "xml",
  "application/xml": "xml",
  "application/fhir+xml": "xml",
  "application/xml+fhir": "xml",
};
// Keyed by what the client sent: no prototype, so _format=constructor finds nothing (406).
const FORMAT_PARAM = lookupTable<FhirFormat>({ ...MEDIA_TYPES, json: "json", xml: "xml" });
const ACCEPT_RANGE = lookupTable<FhirFormat>({ ...MEDIA_TYPES, "*/*": "json", "application/*": "json", "text/*": "xml" });

/** The format asked for, undefined when the asking admits neither (answered 406 by `responseFormat`). */
function askedFormat(c: Context): FhirFormat | undefined {
  const format = c.req.query("_format");
  // A "+" in a query is a space once decoded: _format=application/fhir+xml.
  if (format) return FORMAT_PARAM[format.split(";")[0]!.trim().toLowerCase().replace(/ /g, "+")];
  const accept = c.req.header("accept")?.trim();
  const bodyIsXml = XML_BODY.test(c.req.header("content-type") ?? "");
  if (!accept || accept === "*/*") return bodyIsXml ? "xml" : "json";
  if (!/xml/i.test(accept) && /json|\*\/\*|application\/\*/i.test(accept)) return "json";
  for (const range of parseAccept(accept)) {
    if (range.q <= 0) continue;
    const wanted = ACCEPT_RANGE[range.type.toLowerCase()];
    if (wanted) return range.type === "*/*" && bodyIsXml ? "xml" : wanted;
  }
  return undefined;
}

/** The format to answer in; 406 when `_format` or Accept names only formats this server does not write. */
export function responseFormat(c: Context): FhirFormat {
  const format = askedFormat(c);
  if (format) return format;
  const asked = c.req.query("_format") ? `_format ${c.req.query("_format")}` : `Accept "${c.req.header("accept")}"`;
  throw notAcceptable(`${asked} admits neither application/fhir+json nor application/fhir+xml`);
}

async function fromXml(text: string): Promise<unknown> {
  const { resourceFromXml, FhirXmlError, XmlSyntaxError } = await import("../xml");
  try {
    const resource = resourceFromXml(text);
    // Elements are bounded at the same depth; their objects and arrays may nest deeper than JSON allows.
    if (valueTooDeep(resource)) throw tooDeep("The resource");
    return resource;
  } catch (e) {
    if (e instanceof FhirXmlError || e instanceof XmlSyntaxError) throw badRequest(`The body is not valid FHIR XML: ${e.message}`);
    throw e;
  }
}

/** A FHIR resource body in JSON (the types `json` admits) or XML; 415 for any other Content-Type, 400 when it does not parse. */
export async function readResource(c: Context, json = JSON_BODY): Promise<unknown> {
  const type = c.req.header("content-type") ?? "";
  if (XML_BODY.test(type)) return fromXml(await c.req.text());
  if (!json.test(type)) throw unsupportedMediaType(`Content-Type must be application/fhir+json or application/fhir+xml, got ${type ? `"${type}"` : "none"}`);
  try {
    return await c.req.json();
  } catch {
    throw badRequest("The body is not valid JSON");
  }
}

/** An optional Parameters body, JSON whatever its Content-Type unless that says XML: empty is an empty Parameters. */
export async function readOptionalResource(c: Context): Promise<unknown> {
  const text = await c.req.text();
  if (!text.trim()) return { resourceType: "Parameters" };
  if (XML_BODY.test(c.req.header("content-type") ?? "")) return fromXml(text);
  try {
    return parseBoundedJson(text);
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw badRequest("The body is not valid JSON");
  }
}

const FHIR_JSON_RESPONSE = /^application\/(fhir\+)?json\b/i;

/** The XML media type to label an answer with: the client's own plain-XML type when it asked only for that. */
function xmlContentType(c: Context): string {
  const accept = (c.req.header("accept") ?? "").toLowerCase();
  if (c.req.query("_format") || accept.includes("fhir+xml") || accept.includes("xml+fhir")) return "application/fhir+xml; charset=utf-8";
  if (accept.includes("application/xml")) return "application/xml; charset=utf-8";
  if (accept.includes("text/xml")) return "text/xml; charset=utf-8";
  return "application/fhir+xml; charset=utf-8";
}

/**
 * Rewrites FHIR JSON answers (resources, Bundles, OperationOutcomes, errors included) as XML when
 * the client asked for XML. Mounted on /fhir/* before authentication, so every answer there,
 * refusals included, comes in the format asked for.
 */
export const fhirXmlResponses: MiddlewareHandler = async (c, next) => {
  await next();
  if (!/xml/i.test(`${c.req.query("_format") ?? ""} ${c.req.header("accept") ?? ""} ${c.req.header("content-type") ?? ""}`)) return;
  if (askedFormat(c) !== "xml" || !FHIR_JSON_RESPONSE.test(c.res.headers.get("content-type") ?? "")) return;
  const text = await c.res.clone().text();
  let resource: unknown;
  try {
    resource = JSON.parse(text);
  } catch {
    return;
  }
  if (!resource || typeof resource !== "object" || typeof (resource as { resourceType?: unknown }).resourceType !== "string") return;
  const { resourceToXml } = await import("../xml");
  const { status } = c.res;
  const headers = new Headers(c.res.headers);
  headers.set("Content-Type", xmlContentType(c));
  headers.delete("Content-Length");
  // Cleared first: Hono's setter would otherwise copy the JSON answer's headers (Content-Length) onto the new one.
  c.res = undefined;
  c.res = new Response(resourceToXml(resource as { resourceType: string }), { status, headers });
};
