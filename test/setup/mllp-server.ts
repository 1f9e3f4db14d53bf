// Vitest globalSetup (runs in Node, since workerd cannot listen): a loopback MLLP
// receiver for the hl7.send tests. AA by default, AE for MSH-10 "BAD…", silence for "SLOW…".
import { createServer, type Socket } from "node:net";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    mllpPort: number;
    mllpControlUrl: string;
  }
}

const VT = 0x0b;
const FS = 0x1c;
const CR = 0x0d;

function ackFor(message: string): string | null {
  const msh = (message.split(/\r\n?|\n/)[0] ?? "").split("|");
  const control = msh[9] ?? "";
  if (control.startsWith("SLOW")) return null;
  const code = control.startsWith("BAD") ? "AE" : "AA";
  const text = code === "AE" ? "Unknown patient" : "";
  // Sender and receiver swap; MSA echoes MSH-10.
  return [`MSH|^~\\&|${msh[4] ?? ""}|${msh[5] ?? ""}|${msh[2] ?? ""}|${msh[3] ?? ""}|20260101000000||ACK|A${control}|P|2.5.1`, `MSA|${code}|${control}|${text}`].join("\r");
}

export default async function setup(project: TestProject) {
  const received: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
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
        received.push(message);
        const ack = ackFor(message);
        // Split the answer in two writes so the client's chunk handling is exercised for real.
        if (ack !== null) {
          const framed = Buffer.concat([Buffer.from([VT]), Buffer.from(ack, "utf8"), Buffer.from([FS, CR])]);
          socket.write(framed.subarray(0, 7));
          setTimeout(() => socket.write(framed.subarray(7)), 5);
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("MLLP test server has no port");
  // What the server received, for "test mode sent nothing": workerd tests read it over HTTP.
  const { createServer: createHttpServer } = await import("node:http");
  const control = createHttpServer((_req, res) => {
    res.setHeader("content-type", "application/json");
    // No keep-alive, as for the Orthanc control (standards-servers.ts): a pooled connection idle past Node's timeout is lost.
    res.setHeader("connection", "close");
    res.end(JSON.stringify({ received }));
  });
  await new Promise<void>((resolve) => control.listen(0, "127.0.0.1", resolve));
  const controlAddress = control.address();
  if (controlAddress === null || typeof controlAddress === "string") throw new Error("MLLP control server has no port");
  project.provide("mllpPort", address.port);
  project.provide("mllpControlUrl", `http://127.0.0.1:${controlAddress.port}/received`);
  return async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await new Promise<void>((resolve) => control.close(() => resolve()));
  };
}
