// Vitest globalSetup (Node, since workerd cannot listen): receivers the outbound tests create on
// demand, each on its own loopback port and following a script, then answering well forever:
//   POST {outboundPeersUrl}/mllp {script: [{reply: "AA"|"AE"|"AR"|"CE"|"drop"|"half"|"silent", times?, close_after?}]}
//     → {id, port}: an MLLP receiver (a step with control_prefix answers only messages whose MSH-10 starts with it). drop: closes the connection on the frame; half: sends half
//     an ACK and closes (mid-frame); silent: never answers; close_after: closes the connection once the ACK is
//     written (a receiver ending a connection between messages). It ACKs AA once the script is done; each
//     message received is numbered with its connection (`connection`, 1 for the first accepted).
//   POST {outboundPeersUrl}/http {script: [{status, times?, delay_ms?, location?}], secrets?: ["whsec_…"]}
//     → {id, url}: an HTTP receiver answering 200 once the script is done; with secrets, it checks
//     each request's Standard Webhooks signature with the standardwebhooks package (`verified`).
//   PUT {outboundPeersUrl}/{id}/secrets {secrets: ["whsec_…"]} → 204: the secrets to verify with from
//     now on (a webhook endpoint's secret is known only once the receiver's URL is registered).
//   GET {outboundPeersUrl}/{id}/received → {received: [{body, headers, at, answered, verified?, verified_each?}]}
//     (verified_each: for each secret in order, whether the request verified with it alone).
import { createServer as createHttpServer, type IncomingMessage, type Server } from "node:http";
import { createServer, type Socket } from "node:net";
import { Webhook } from "standardwebhooks";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    outboundPeersUrl: string;
  }
}

interface Step {
  reply?: string;
  status?: number;
  times?: number;
  delay_ms?: number;
  location?: string;
  control_prefix?: string;
  close_after?: boolean;
}

interface Received {
  body: string;
  headers: Record<string, string>;
  at: number;
  answered: string;
  verified?: boolean;
  verified_each?: boolean[];
  error?: string;
  connection?: number;
}

interface Peer {
  received: Received[];
  secrets?: string[];
  close(): Promise<void>;
}

const VT = 0x0b;
const FS = 0x1c;
const CR = 0x0d;

/**
 * The script as it runs: each step answers its `times` messages (1 by default), in order; a step
 * with control_prefix (MLLP) only those whose MSH-10 starts with it. Past the script: undefined.
 */
function scriptRunner(script: Step[]): (control: string) => Step | undefined {
  const used = script.map(() => 0);
  return (control) => {
    const i = script.findIndex((s, n) => (used[n] ?? 0) < (s.times ?? 1) && (!s.control_prefix || control.startsWith(s.control_prefix)));
    if (i < 0) return undefined;
    used[i] = (used[i] ?? 0) + 1;
    return script[i];
  };
}

function ack(message: string, code: string): string {
  const msh = (message.split(/\r\n?|\n/)[0] ?? "").split("|");
  const control = msh[9] ?? "";
  const text = code === "AA" || code === "CA" ? "" : `Scripted ${code}`;
  return [`MSH|^~\\&|${msh[4] ?? ""}|${msh[5] ?? ""}|${msh[2] ?? ""}|${msh[3] ?? ""}|20260101000000||ACK|A${control}|P|2.5.1`, `MSA|${code}|${control}|${text}`].join("\r");
}

async function listen(server: Server | ReturnType<typeof createServer>): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("peer has no port");
  return address.port;
}

/** One scripted MLLP receiver (also started directly by the bridge's relay tests, which have no globalSetup). */
export async function mllpPeer(script: Step[] = []): Promise<Peer & { port: number }> {
  const received: Received[] = [];
  const next = scriptRunner(script);
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createServer((socket) => {
    const connection = ++connections;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    let buf = Buffer.alloc(0);
    socket.on("data", (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      for (;;) {
        const start = buf.indexOf(VT);
        const end = buf.indexOf(Buffer.from([FS, CR]), start + 1);
        if (start < 0 || end < 0) return;
        const message = buf.subarray(start + 1, end).toString("utf8");
        buf = buf.subarray(end + 2);
        const step = next((message.split(/\r\n?|\n/)[0] ?? "").split("|")[9] ?? "");
        const reply = step?.reply ?? "AA";
        received.push({ body: message, headers: {}, at: Date.now(), answered: reply, connection });
        if (reply === "drop") return void socket.destroy();
        if (reply === "silent") return;
        const framed = Buffer.concat([Buffer.from([VT]), Buffer.from(ack(message, reply), "utf8"), Buffer.from([FS, CR])]);
        if (reply === "half") {
          socket.write(framed.subarray(0, Math.floor(framed.length / 2)), () => socket.destroy());
          return;
        }
        setTimeout(() => socket.write(framed, () => step?.close_after && socket.end()), step?.delay_ms ?? 0);
      }
    });
  });
  const port = await listen(server);
  return {
    port,
    received,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

function verify(secrets: string[], body: string, headers: Record<string, string>): { verified: boolean; verified_each: boolean[]; error?: string } {
  const errors: string[] = [];
  const each = secrets.map((secret) => {
    try {
      new Webhook(secret).verify(body, headers);
      return true;
    } catch (err) {
      errors.push(err instanceof Error ? err.message : String(err));
      return false;
    }
  });
  return each.some(Boolean) ? { verified: true, verified_each: each } : { verified: false, verified_each: each, error: errors.join("; ") };
}

async function httpPeer(script: Step[], secrets: string[] | undefined): Promise<Peer & { url: string }> {
  const received: Received[] = [];
  const next = scriptRunner(script);
  const peer: Peer & { url: string } = { url: "", received, secrets, close: () => new Promise<void>((r) => server.close(() => r())) };
  const server = createHttpServer(async (req, res) => {
    const body = await bodyOf(req);
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : (v ?? "")]));
    const step = next("");
    const status = step?.status ?? 200;
    received.push({ body, headers, at: Date.now(), answered: String(status), ...(peer.secrets ? verify(peer.secrets, body, headers) : {}) });
    if (step?.delay_ms) await new Promise((r) => setTimeout(r, step.delay_ms));
    res.setHeader("connection", "close");
    res.writeHead(status, step?.location ? { location: step.location } : {});
    res.end(status >= 400 ? `scripted ${status}` : "ok");
  });
  peer.url = `http://127.0.0.1:${await listen(server)}/hook`;
  return peer;
}

export default async function setup(project: TestProject) {
  const peers = new Map<string, Peer>();
  let next = 0;
  const control = createHttpServer(async (req, res) => {
    res.setHeader("content-type", "application/json");
    res.setHeader("connection", "close");
    const url = new URL(req.url ?? "/", "http://x");
    const send = (status: number, value: unknown) => res.writeHead(status).end(JSON.stringify(value));
    try {
      if (req.method === "POST" && (url.pathname === "/mllp" || url.pathname === "/http")) {
        const spec = JSON.parse((await bodyOf(req)) || "{}") as { script?: Step[]; secrets?: string[] };
        const id = `peer-${++next}`;
        if (url.pathname === "/mllp") {
          const peer = await mllpPeer(spec.script ?? []);
          peers.set(id, peer);
          return send(201, { id, port: peer.port });
        }
        const peer = await httpPeer(spec.script ?? [], spec.secrets);
        peers.set(id, peer);
        return send(201, { id, url: peer.url });
      }
      const m = /^\/(peer-\d+)\/(received|secrets)$/.exec(url.pathname);
      const peer = m ? peers.get(m[1]!) : undefined;
      if (peer && m?.[2] === "secrets" && req.method === "PUT") {
        peer.secrets = ((JSON.parse((await bodyOf(req)) || "{}") as { secrets?: string[] }).secrets ?? []).slice();
        return void res.writeHead(204).end();
      }
      if (peer) return send(200, { received: peer.received });
      send(404, { error: "no such peer" });
    } catch (err) {
      send(500, { error: String(err) });
    }
  });
  const port = await listen(control);
  project.provide("outboundPeersUrl", `http://127.0.0.1:${port}`);
  return async () => {
    for (const p of peers.values()) await p.close();
    await new Promise<void>((r) => control.close(() => r()));
  };
}
