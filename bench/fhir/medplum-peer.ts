// Starts bench/fhir/medplum-server.ts in its own process group on a free port, and reads the CPU
// time of that group (tsx and the node process it runs), for the fhir-http bench's comparison.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { cpuMs, groupPids } from "../lib/rss";
import { freePort } from "../lib/worker";

export interface MedplumPeer {
  base: string;
  version: string;
  cpuMs(): number;
  stop(): Promise<void>;
}

export async function startMedplum(): Promise<MedplumPeer> {
  const port = await freePort();
  const child = spawn("tsx", [path.join(import.meta.dirname, "medplum-server.ts"), "--port", String(port)], { stdio: ["ignore", "pipe", "inherit"], detached: true });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (d: Buffer) => d.toString().includes("listening") && resolve());
    child.once("exit", (code) => reject(new Error(`the Medplum server exited with ${code}`)));
  });
  const pkg = JSON.parse(readFileSync(path.join(import.meta.dirname, "../../node_modules/@medplum/fhir-router/package.json"), "utf8")) as { version: string };
  return {
    base: `http://127.0.0.1:${port}/fhir`,
    version: pkg.version,
    cpuMs: () => cpuMs(groupPids(child.pid!)),
    async stop() {
      process.kill(-child.pid!, "SIGTERM");
      await new Promise((r) => child.once("exit", r));
    },
  };
}
