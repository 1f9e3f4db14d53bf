// Listener options: a latin1 sender's bytes arrive at the Worker as the right characters, and
// MLLP over TLS (certificate made with openssl; skipped, with the reason, without it).
import { execFileSync } from "node:child_process";
import path from "node:path";
import tls from "node:tls";
import { afterEach, expect, it } from "vitest";
import { frame, MllpDecoder } from "../src/listeners/mllp/framing";
import { FakeWorker } from "./support/fake-worker";
import { fixture, withHeader } from "./support/fixtures";
import { startTestBridge, tempDir, waitFor } from "./support/harness";
import { MllpClient, msa } from "./support/mllp-client";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(extra: Record<string, string>) {
  const worker = await FakeWorker.start();
  cleanups.push(() => worker.close());
  const harness = await startTestBridge(worker, extra);
  cleanups.push(() => harness.stop());
  return { worker, harness };
}

it("decodes latin1 messages and answers in latin1", async () => {
  const { worker, harness } = await setup({ MLLP_ENCODING: "latin1" });
  const message = withHeader(fixture("ADT-A01-01.hl7"), "LATIN", "Zürich", "L-1").replace("PID|", "NTE|1||Müller Ærø\rPID|");
  const client = await MllpClient.connect(harness.bridge.mllpPort);
  client.write(frame(Buffer.from(message, "latin1")));
  const reply = await client.nextReply();
  client.close();
  expect(msa(reply)).toMatchObject({ code: "AA", controlId: "L-1" });
  await waitFor(() => worker.accepted.length === 1, "forwarded");
  expect(worker.accepted[0]?.raw).toContain("NTE|1||Müller Ærø\r");
  expect(worker.accepted[0]?.sender).toBe("LATIN|Zürich");
});

function makeCertificate(dir: string): { cert: string; key: string } | null {
  const cert = path.join(dir, "cert.pem");
  const key = path.join(dir, "key.pem");
  try {
    execFileSync(
      "openssl",
      ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1"],
      { stdio: "ignore" },
    );
    return { cert, key };
  } catch {
    return null;
  }
}

it("serves MLLP over TLS", async (context) => {
  const temp = tempDir("bridge-tls-");
  cleanups.push(() => temp.remove());
  const files = makeCertificate(temp.dir);
  if (!files) context.skip("openssl not found: cannot make a test certificate");
  const { worker, harness } = await setup({ MLLP_TLS_CERT: files?.cert ?? "", MLLP_TLS_KEY: files?.key ?? "" });
  const socket = tls.connect({ host: "127.0.0.1", port: harness.bridge.mllpPort, rejectUnauthorized: false });
  cleanups.push(() => {
    socket.destroy();
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("secureConnect", resolve);
    socket.once("error", reject);
  });
  const decoder = new MllpDecoder(1024 * 1024);
  const reply = new Promise<string>((resolve) => {
    socket.on("data", (data: Buffer) => {
      const [event] = decoder.push(data);
      if (event?.kind === "frame") resolve(event.payload.toString());
    });
  });
  socket.write(frame(Buffer.from(withHeader(fixture("ADT-A01-01.hl7"), "TLS", "FAC", "T-1"))));
  expect(msa(await reply)).toMatchObject({ code: "AA", controlId: "T-1" });
  await waitFor(() => worker.acceptedFrom("TLS|FAC").length === 1, "forwarded");
});
