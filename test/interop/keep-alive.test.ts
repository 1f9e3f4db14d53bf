// Keep-alive clients against `npm start`'s runtime (Miniflare, workerd's own HTTP server): POSTs
// the Worker answers without reading their body (401, 403, 413, 415) must leave the connection
// usable. workerd closes a connection whose request body was not read, without telling the client,
// and the request the client had already sent on it is reset; the Worker now reads such a body
// before answering (src/platform/http/unread-body.ts). Node's keep-alive agent sends each request
// on a free connection at once, as HTTP client libraries do.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningWorker, startWorker } from "../../bench/lib/worker";

const MAX_BODY_BYTES = 4096;
let worker: RunningWorker;

beforeAll(async () => {
  // The per-IP budget raised: refusals count there, and this test measures connections, not that
  // limit. Its own runtime (a body limit the shared service must not have) starts while the shared
  // one serves the other files: the start may take the project's whole hook budget on a loaded machine.
  worker = await startWorker({ runtime: "miniflare", startTimeoutMs: 170_000, vars: { MAX_BODY_BYTES: String(MAX_BODY_BYTES), LIMIT_PUBLIC_PER_MINUTE: "100000" } });
});

afterAll(async () => {
  await worker?.stop();
});

interface Sent {
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  /** Sent in chunks without a Content-Length (Transfer-Encoding: chunked). */
  chunked?: boolean;
}

interface Outcome {
  status?: number;
  error?: string;
}

function send(agent: http.Agent, sockets: Set<unknown>, { path, headers, body, chunked }: Sent): Promise<Outcome> {
  const url = new URL(worker.url);
  return new Promise((resolve) => {
    const req = http.request({ host: url.hostname, port: url.port, path, method: "POST", agent, headers: { "content-type": "application/json", ...headers, ...(chunked ? {} : { "content-length": String(body.length) }) } }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode }));
    });
    req.on("socket", (socket) => sockets.add(socket));
    req.on("error", (e: NodeJS.ErrnoException) => resolve({ error: e.code ?? e.message }));
    if (chunked) {
      for (let at = 0; at < body.length; at += 1024) req.write(body.subarray(at, at + 1024));
      req.end();
    } else req.end(body);
  });
}

describe("keep-alive POSTs answered before their body is read", () => {
  it("get their answer, and the connection serves the next request", async () => {
    const json = (size: number) => Buffer.from(JSON.stringify({ resourceType: "Patient", text: "x".repeat(size) }));
    const kinds: [string, number, Sent][] = [
      ["a key of another organization", 403, { path: "/api/pipelines", headers: { ...worker.headers, "x-organization-id": "another-org" }, body: json(2000) }],
      ["another organization's FHIR base", 403, { path: "/fhir/r4/another-org/Patient", headers: { ...worker.headers, "content-type": "application/fhir+json" }, body: json(2000) }],
      ["no valid key", 401, { path: "/api/pipelines", headers: { authorization: "Bearer nope", "x-organization-id": worker.orgId }, body: json(2000) }],
      ["a Content-Length over the limit", 413, { path: "/api/pipelines", headers: worker.headers, body: json(64 * 1024) }],
      ["a chunked body over the limit", 413, { path: "/api/pipelines", headers: worker.headers, body: json(64 * 1024), chunked: true }],
      ["a body that is not JSON", 415, { path: "/api/pipelines", headers: { ...worker.headers, "content-type": "text/plain" }, body: Buffer.from("x".repeat(2000)) }],
      ["a create that reads its body", 201, { path: `/fhir/r4/${worker.orgId}/Patient`, headers: { ...worker.headers, "content-type": "application/fhir+json" }, body: Buffer.from('{"resourceType":"Patient"}') }],
    ];
    const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
    const sockets = new Set<unknown>();
    try {
      const rounds = 30;
      const outcomes = await Promise.all(Array.from({ length: rounds * kinds.length }, (_, i) => kinds[i % kinds.length]!).map(async ([what, expected, sent]) => ({ what, expected, ...(await send(agent, sockets, sent)) })));
      const wrong = outcomes.filter((o) => o.status !== o.expected).map((o) => `${o.what}: ${o.error ?? o.status}`);
      expect(wrong).toEqual([]);
      // A few connections carried every request (one each, and a reset for the next, before the fix).
      expect(sockets.size).toBeLessThan(10);
    } finally {
      agent.destroy();
    }
  });
});
