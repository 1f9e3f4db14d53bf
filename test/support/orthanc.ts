// A real Orthanc with its DICOMweb plugin for the DICOMweb tests and bench (Debian
// `orthanc` + `orthanc-dicomweb`, see .ci/debian-packages). Each start gets a temporary
// folder with its config and storage, free HTTP and DICOM ports, and the plugin's Host set
// to the real host:port (Debian's default "localhost" drops the port from RetrieveURL).
// Orthanc binds 0.0.0.0 and cannot be told otherwise, so it runs under an LD_PRELOAD shim
// (orthanc-loopback-bind.c, compiled here with the system cc) that turns wildcard binds
// into loopback ones: nothing outside this machine can reach it.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

const ORTHANC = "/usr/sbin/Orthanc";
const PLUGIN = "/usr/share/orthanc/plugins/libOrthancDicomWeb.so";
const SHIM_SOURCE = path.join(import.meta.dirname, "orthanc-loopback-bind.c");

export interface OrthancOptions {
  /** HTTP basic users (name → password); when given, every request needs one (401 otherwise). */
  users?: Record<string, string>;
}

export interface RunningOrthanc {
  /** http://127.0.0.1:<port> */
  url: string;
  /** The DICOMweb root: `${url}/dicom-web`. */
  dicomweb: string;
  httpPort: number;
  /** Basic auth header value for the first user, when users were given. */
  authorization?: string;
  stop(): Promise<void>;
}

/** A TCP port nothing listens on right now (also what "server down" tests call). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * A port nothing listens on, for "server down" tests, that no free-port request will hand out
 * next: it is below Linux's ephemeral range (32768–60999 by default), where port 0 binds (this
 * suite's Orthancs, other test files' servers running at the same time) take theirs. A port from
 * freePort() could be given to an Orthanc another file starts a moment later, and a request
 * meant for a dead server would reach it.
 */
export async function closedPort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 10_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(false));
      server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

/** Why Orthanc cannot run here, or undefined when it can. */
export function orthancMissing(): string | undefined {
  if (!existsSync(ORTHANC)) return `${ORTHANC} is missing: apt-get install orthanc`;
  if (!existsSync(PLUGIN)) return `${PLUGIN} is missing: apt-get install orthanc-dicomweb`;
  return undefined;
}

function buildShim(dir: string): string {
  const out = path.join(dir, "loopback-bind.so");
  execFileSync("cc", ["-shared", "-fPIC", "-O2", "-o", out, SHIM_SOURCE, "-ldl"], { stdio: "pipe" });
  return out;
}

export async function startOrthanc(options: OrthancOptions = {}): Promise<RunningOrthanc> {
  const missing = orthancMissing();
  if (missing) throw new Error(`Orthanc is not installed (${missing}); .ci/debian-packages lists it`);
  const dir = mkdtempSync(path.join(tmpdir(), "orthanc-"));
  const [httpPort, dicomPort] = [await freePort(), await freePort()];
  const config = path.join(dir, "config");
  mkdirSync(config);
  const users = options.users ?? {};
  const secured = Object.keys(users).length > 0;
  writeFileSync(
    path.join(config, "orthanc.json"),
    JSON.stringify({
      Name: "cdis-test",
      StorageDirectory: path.join(dir, "db"),
      IndexDirectory: path.join(dir, "db"),
      HttpPort: httpPort,
      DicomPort: dicomPort,
      RemoteAccessAllowed: false,
      AuthenticationEnabled: secured,
      RegisteredUsers: users,
      HttpCompressionEnabled: false,
      Plugins: [PLUGIN],
      DicomWeb: { Enable: true, Root: "/dicom-web/", EnableWado: false, Host: `127.0.0.1:${httpPort}`, Ssl: false },
    }),
  );
  const shim = buildShim(dir);
  const log: string[] = [];
  const child: ChildProcess = spawn(ORTHANC, [config], { env: { ...process.env, LD_PRELOAD: shim }, stdio: ["ignore", "pipe", "pipe"] });
  const keep = (b: Buffer) => log.push(b.toString()) > 200 && log.shift();
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const url = `http://127.0.0.1:${httpPort}`;
  const [name, password] = Object.entries(users)[0] ?? [];
  const authorization = name === undefined ? undefined : `Basic ${btoa(`${name}:${password}`)}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`Orthanc exited with ${child.exitCode}:\n${log.join("").slice(-2000)}`);
    }
    const res = await fetch(`${url}/system`, authorization ? { headers: { authorization } } : {}).catch(() => undefined);
    if (res?.ok) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`Orthanc did not answer on ${url} within 30 s:\n${log.join("").slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, dicomweb: `${url}/dicom-web`, httpPort, ...(authorization ? { authorization } : {}), stop };
}
