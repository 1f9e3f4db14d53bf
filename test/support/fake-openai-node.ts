// The fake OpenAI-compatible server (fake-openai.ts) behind node:http on loopback, for Node tests
// whose model client (or a child process) connects over the network.
import { createServer } from "node:http";
import type { FakeServer } from "./fake-openai";

export interface LoopbackModel {
  /** The OpenAI-compatible base URL, ending in /v1. */
  baseURL: string;
  close(): Promise<void>;
}

export async function serveOnLoopback(fake: FakeServer): Promise<LoopbackModel> {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const response = await fake.fetch(`http://127.0.0.1${req.url}`, {
      method: req.method,
      headers: req.headers as Record<string, string>,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const addr = server.address();
  return {
    baseURL: `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}/v1`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
