// Interoperability with a third-party MLLP client: Debian's python3-hl7 `mllp_send`.
// Skipped, with the reason, where the command is not installed (CI installs python3-hl7).
import { execFileSync, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { FakeWorker } from "./support/fake-worker";
import { fixture, withHeader } from "./support/fixtures";
import { startTestBridge, tempDir, waitFor } from "./support/harness";

function hasMllpSend(): boolean {
  try {
    execFileSync("mllp_send", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const available = hasMllpSend();
let worker: FakeWorker;
let harness: Awaited<ReturnType<typeof startTestBridge>>;

beforeAll(async () => {
  if (!available) return;
  worker = await FakeWorker.start();
  harness = await startTestBridge(worker);
});
afterAll(async () => {
  await harness?.stop();
  await worker?.close();
});

/** Runs mllp_send on a file of messages, each ended by FS (0x1C), and returns its stdout (the replies). */
function mllpSend(port: number, messages: string[]): Promise<string> {
  const temp = tempDir("mllp-send-");
  const file = path.join(temp.dir, "messages.hl7");
  // --file, not stdin: python3-hl7 0.4.5 reads stdin as text and fails on it.
  writeFileSync(file, messages.map((m) => `${m}\x1c`).join(""));
  return new Promise<string>((resolve, reject) => {
    const child = spawn("mllp_send", ["--port", String(port), "--file", file, "127.0.0.1"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      err += chunk;
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`mllp_send exited with ${code}: ${err}`));
    });
  }).finally(() => temp.remove());
}

it("accepts messages sent by mllp_send (python3-hl7) and ACKs each", async (context) => {
  if (!available) context.skip("mllp_send not found: install Debian's python3-hl7 (apt-get install -y python3-hl7)");
  const messages = [
    withHeader(fixture("ADT-A01-01.hl7"), "PYHL7", "FAC", "PY-1"),
    withHeader(fixture("ADT04-23.hl7"), "PYHL7", "FAC", "PY-2"),
    withHeader(fixture("SIU-S12-01.hl7"), "PYHL7", "FAC", "PY-3"),
  ];
  const output = await mllpSend(harness.bridge.mllpPort, messages);
  const acks = output.split(/[\r\n]+/).filter((line) => line.startsWith("MSA"));
  expect(acks).toEqual(["MSA|AA|PY-1", "MSA|AA|PY-2", "MSA|AA|PY-3"]);
  await waitFor(() => worker.acceptedFrom("PYHL7|FAC").length === 3, "forwarded");
  expect(worker.acceptedFrom("PYHL7|FAC")).toEqual(["PY-1", "PY-2", "PY-3"]);
});
