// Vitest globalSetup (Node): a stand-in wearable vendor on 127.0.0.1 for the device sync tests.
// GET /users/{user}/{dataType}?start&end&page answers pages of heart-rate samples in a vendor's
// shape (bearer token required); "spo2" answers 429 with Retry-After once per user, then data;
// "ecg" always fails with 400 (a data type the vendor cannot serve).
import { createServer, type Server } from "node:http";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    deviceVendorUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const limited = new Set<string>();
  // A record keeps its time whatever window asks for it (a vendor's record id names one record):
  // an hour before the run began, inside every window the tests ask for.
  const anchor = Date.now() - 3_600_000;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const [, , user, dataType] = url.pathname.split("/");
    res.setHeader("content-type", "application/json");
    if (req.headers.authorization !== "Bearer patient-access-token") return void res.writeHead(401).end(JSON.stringify({ error: "invalid_token" }));
    if (dataType === "ecg") return void res.writeHead(400).end(JSON.stringify({ error: "ecg export not enabled for this app" }));
    if (dataType === "spo2" && !limited.has(user!)) {
      limited.add(user!);
      return void res.writeHead(429, { "retry-after": "1" }).end(JSON.stringify({ error: "rate limited" }));
    }
    const page = Number(url.searchParams.get("page") ?? "0");
    const items = Array.from({ length: 3 }, (_, i) => ({ id: `${dataType}-${page}-${i}`, ts: new Date(anchor + (page * 3 + i + 1) * 60_000).toISOString(), value: dataType === "spo2" ? 0.96 : 60 + page * 3 + i }));
    if (dataType === "heart_rate" && page === 0) items.push({ id: "hr-bad", ts: "not a time", value: 70 });
    res.end(JSON.stringify({ data: items, next_page: page < 1 ? page + 1 : null }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("device vendor server has no port");
  project.provide("deviceVendorUrl", `http://127.0.0.1:${address.port}`);
  return async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
}
