// A fetch-style handler (such as the fake OpenAI-compatible server) served by node:http on
// 127.0.0.1, for Node-side tests and the browser suite (not for workerd tests: it needs node:http).
import { createServer } from "node:http";

export interface LoopbackServer {
  /** http://127.0.0.1:<port> */
  origin: string;
  close(): Promise<void>;
}

export async function serveOnLoopback(handler: (url: string, init: RequestInit) => Promise<Response>): Promise<LoopbackServer> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const response = await handler(`http://127.0.0.1${req.url}`, {
      method: req.method,
      headers: req.headers as Record<string, string>,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name] = value;
    });
    res.writeHead(response.status, headers);
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  return { origin: `http://127.0.0.1:${port}`, close: () => new Promise<void>((r) => server.close(() => r())) };
}
