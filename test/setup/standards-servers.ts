// Vitest globalSetup (Node) for the X12 and DICOMweb node tests: a loopback clearinghouse
// that reads what it is sent with the X12 codec and answers its 999/TA1 (raw at /raw, JSON
// {"x12"} at /json, 503 at /down), and a control server that starts real Orthancs (Debian
// orthanc + orthanc-dicomweb) on demand, seeded with test/fixtures/dicom, so worker tests
// that need none pay nothing; and a peer that drops STOW requests midway. Every Orthanc started is stopped at teardown.
import { readdirSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { type AddressInfo, createServer as createNetServer } from "node:net";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { readX12 } from "../../src/standards/x12/read";
import { acknowledgementText } from "../../src/standards/x12/nodes/acknowledgement";
import { droppingPeer } from "../support/dropping-peer";
import { closedPort, orthancMissing, type RunningOrthanc, startOrthanc } from "../support/orthanc";

declare module "vitest" {
  export interface ProvidedContext {
    clearinghouseUrl: string;
    orthancControlUrl: string;
    /** A peer that answers GETs with [] and resets a POST after 1 KiB (a STOW dropped mid-request). */
    droppingPeerUrl: string;
  }
}

const DICOM_DIR = path.resolve(import.meta.dirname, "../fixtures/dicom");

const bodyOf = async (req: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
};

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("test server has no port");
  return `http://127.0.0.1:${address.port}`;
}

/** Stores every fixture file in the Orthanc through its REST API (not DICOMweb, which is under test). */
async function seed(o: RunningOrthanc): Promise<void> {
  for (const name of readdirSync(DICOM_DIR).filter((n) => n.endsWith(".dcm"))) {
    const res = await fetch(`${o.url}/instances`, { method: "POST", body: readFileSync(path.join(DICOM_DIR, name)), ...(o.authorization ? { headers: { authorization: o.authorization } } : {}) });
    if (!res.ok) throw new Error(`seeding ${name}: HTTP ${res.status}`);
  }
}

export default async function setup(project: TestProject) {
  let lastRequest: { path: string; authorization: string; contentType: string } | undefined;
  const clearinghouse = createServer(async (req, res) => {
    const text = await bodyOf(req);
    if (req.url === "/last") return void res.end(JSON.stringify(lastRequest ?? null));
    lastRequest = { path: req.url ?? "", authorization: req.headers.authorization ?? "", contentType: req.headers["content-type"] ?? "" };
    if (req.url === "/down") return void res.writeHead(503).end("maintenance");
    const json = req.url === "/json";
    let ack: string;
    try {
      ack = acknowledgementText(readX12(json ? (JSON.parse(text) as { x12: string }).x12 : text), { alwaysTa1: true });
    } catch (e) {
      return void res.writeHead(400).end(String(e));
    }
    res.setHeader("content-type", json ? "application/json" : "application/edi-x12");
    res.end(json ? JSON.stringify({ x12: ack }) : ack);
  });

  const running: RunningOrthanc[] = [];
  const control = createServer(async (req, res) => {
    // No keep-alive: a test's calls are seconds apart (start before, stop after), and a pooled
    // connection this server has closed meanwhile (Node's 5 s idle timeout) reached workerd as
    // "Network connection lost" on the next call (CI saw it on an afterAll's /stop).
    res.setHeader("connection", "close");
    const url = new URL(req.url ?? "/", "http://x");
    try {
      if (url.pathname === "/missing") return void res.end(JSON.stringify({ missing: orthancMissing() ?? null }));
      if (url.pathname === "/free-port") return void res.end(JSON.stringify({ port: await closedPort() }));
      if (url.pathname === "/start") {
        const users = url.searchParams.get("user") ? { [url.searchParams.get("user")!]: url.searchParams.get("password") ?? "" } : undefined;
        const o = await startOrthanc(users ? { users } : {});
        running.push(o);
        if (url.searchParams.get("seed") === "1") await seed(o);
        return void res.end(JSON.stringify({ url: o.url, dicomweb: o.dicomweb, authorization: o.authorization ?? null }));
      }
      if (url.pathname === "/stop") {
        const o = running.find((r) => r.url === url.searchParams.get("url"));
        await o?.stop();
        return void res.end(JSON.stringify({ stopped: Boolean(o) }));
      }
      res.writeHead(404).end();
    } catch (e) {
      res.writeHead(500).end(String(e));
    }
  });
  project.provide("clearinghouseUrl", await listen(clearinghouse));
  project.provide("orthancControlUrl", await listen(control));
  const dropping = createNetServer(droppingPeer);
  await new Promise<void>((resolve) => dropping.listen(0, "127.0.0.1", resolve));
  project.provide("droppingPeerUrl", `http://127.0.0.1:${(dropping.address() as AddressInfo).port}`);
  return async () => {
    await Promise.all(running.map((o) => o.stop()));
    dropping.close();
    for (const s of [clearinghouse, control]) s.closeAllConnections();
    await Promise.all([clearinghouse, control].map((s) => new Promise((r) => s.close(r))));
  };
}
