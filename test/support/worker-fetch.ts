// Routes the global fetch to the Worker under test, for npm clients that call fetch themselves
// (fhir-kit-client); returns the function that puts the real fetch back.
import { call } from "./tenants";

export function routeFetchToWorker(): () => void {
  const realFetch = globalThis.fetch;
  globalThis.fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    const url = new URL(req.url);
    const body = req.method === "GET" || req.method === "HEAD" ? undefined : await req.arrayBuffer();
    return call(url.pathname + url.search, { method: req.method, headers: req.headers, body });
  }) as typeof fetch;
  return () => {
    globalThis.fetch = realFetch;
  };
}
