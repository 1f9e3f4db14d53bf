// Delivers one transmit to its address on the hospital network: mllp://host:port (one framed
// message on the destination's kept-open connection, mllp.ts; waits for its ACK), http(s)://… (one request, redirects not followed) or file:///dir
// (<dir>/<delivery id>.<ext>, written to a temporary file and renamed, so a reader never sees half
// a file). Never throws: every failure is an AttemptResult with its class.
import { randomUUID } from "node:crypto";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { AllowList } from "./allow-list";
import { excerpt, fail, type MllpLinks } from "./mllp";
import type { AttemptResult, FailureClass, Transmit } from "./protocol";

/** The header that carries the delivery id on HTTP deliveries, so receivers can de-duplicate. */
export const DELIVERY_ID_HEADER = "x-cdis-delivery-id";

/** Delivers one transmit; MLLP ones over `links`, the destination's kept-open connection. */
export async function deliver(transmit: Transmit, allow: AllowList, links: MllpLinks): Promise<AttemptResult> {
  const refusal = await allow.refusal(transmit.address);
  if (refusal) return fail("not_allowed", refusal);
  const scheme = transmit.address.slice(0, transmit.address.indexOf(":")).toLowerCase();
  try {
    if (scheme === "mllp") return await sendMllp(transmit, links);
    if (scheme === "http" || scheme === "https") return await sendHttp(transmit);
    if (scheme === "file") return await writeFileTarget(transmit);
    return fail("configuration", `the relay cannot deliver to ${scheme}: addresses`);
  } catch (e) {
    return fail("configuration", `delivery failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function sendMllp(transmit: Transmit, links: MllpLinks): Promise<AttemptResult> {
  const url = new URL(transmit.address);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const port = Number(url.port);
  if (!port) return Promise.resolve(fail("configuration", `${transmit.address} names no port`));
  return links.send(transmit.destination_id ?? "", host, port, transmit.body, transmit.timeout_ms);
}

async function sendHttp(transmit: Transmit): Promise<AttemptResult> {
  const base = new URL(transmit.address);
  const url = transmit.path ? new URL(transmit.path.replace(/^\/+/, ""), base.href.endsWith("/") ? base : new URL(`${base.href}/`)) : base;
  const method = transmit.method ?? "POST";
  const headers = new Headers(transmit.headers);
  if (transmit.content_type && !headers.has("content-type")) headers.set("content-type", transmit.content_type);
  headers.set(DELIVERY_ID_HEADER, transmit.delivery_id);
  let response: Response;
  try {
    response = await fetch(url, { method, headers, body: method === "DELETE" ? undefined : transmit.body, redirect: "manual", signal: AbortSignal.timeout(transmit.timeout_ms) });
  } catch (e) {
    const error = e as Error & { cause?: NodeJS.ErrnoException };
    if (error.name === "TimeoutError") return fail("timeout", `no answer from ${url.host} within ${transmit.timeout_ms} ms`);
    const code = error.cause?.code;
    if (code === "ECONNREFUSED" || code === "ECONNRESET" || code === "UND_ERR_SOCKET") return fail("refused", `${url.host}: ${code}`);
    return fail("unreachable", `${url.host}: ${code ?? error.message}`);
  }
  const text = excerpt(await response.text().catch(() => ""));
  const status = response.status;
  if (status >= 200 && status < 300) return { ok: true, status, response: text };
  const cls: FailureClass = status >= 300 && status < 400 ? "redirect" : status === 408 || status === 429 ? "throttled" : status === 410 ? "gone" : status >= 500 ? "server_error" : "client_error";
  return fail(cls, `${url.host} answered ${status}`, { status, response: text });
}

const EXTENSIONS: [RegExp, string][] = [
  [/hl7|er7/i, "hl7"],
  [/fhir\+json|json/i, "json"],
  [/xml/i, "xml"],
  [/x12|edi/i, "x12"],
  [/csv/i, "csv"],
  [/text\/plain/i, "txt"],
];

async function writeFileTarget(transmit: Transmit): Promise<AttemptResult> {
  const dir = fileURLToPath(new URL(transmit.address));
  const ext = EXTENSIONS.find(([pattern]) => pattern.test(transmit.content_type ?? ""))?.[1] ?? "dat";
  const safeId = transmit.delivery_id.replace(/[^A-Za-z0-9._-]/g, "_");
  const target = path.join(dir, `${safeId}.${ext}`);
  const temp = path.join(dir, `.${safeId}.${randomUUID()}.tmp`);
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(temp, transmit.body, { flush: true });
    await rename(temp, target);
    return { ok: true, response: `wrote ${target}` };
  } catch (e) {
    await rm(temp, { force: true });
    return fail("unreachable", `${target}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
}
