// Vitest globalSetup (Node): two HTTP servers for the outbound-guard tests. The
// "public" one on 127.0.0.1 (allow-listed by the vitest config's OUTBOUND_ALLOW)
// redirects to ?to=<url>; the "forbidden" one on 127.0.0.2 (not allow-listed) stands
// in for a metadata service and counts the requests that reach it.
import { createServer, type Server } from "node:http";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    redirectorUrl: string;
    forbiddenUrl: string;
  }
}

async function listen(server: Server, host: string): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error(`test server on ${host} has no port`);
  return address.port;
}

export default async function setup(project: TestProject) {
  let hits = 0;
  const forbidden = createServer((req, res) => {
    if (req.url === "/hits") {
      res.end(JSON.stringify({ hits }));
      return;
    }
    hits += 1;
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ AccessKeyId: "SECRET-METADATA-CREDENTIAL" }));
  });
  const forbiddenPort = await listen(forbidden, "127.0.0.2");
  const forbiddenUrl = `http://127.0.0.2:${forbiddenPort}`;
  // Redirects to ?to=; a SMART configuration names the forbidden server's token endpoint.
  const redirector = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const to = url.searchParams.get("to");
    res.setHeader("content-type", "application/json");
    if (to) res.writeHead(302, { location: to }).end();
    else if (url.pathname.endsWith("/.well-known/smart-configuration")) res.end(JSON.stringify({ token_endpoint: `${forbiddenUrl}/token` }));
    else res.end(JSON.stringify({ ok: true }));
  });
  const redirectorPort = await listen(redirector, "127.0.0.1");
  project.provide("forbiddenUrl", forbiddenUrl);
  project.provide("redirectorUrl", `http://127.0.0.1:${redirectorPort}`);
  return async () => {
    forbidden.closeAllConnections();
    redirector.closeAllConnections();
    await Promise.all([new Promise((r) => forbidden.close(r)), new Promise((r) => redirector.close(r))]);
  };
}
