// A real MQTT broker for tests: Debian's mosquitto on a loopback port with its own config and
// persistence file (so a restart keeps the bridge's session and the messages queued for it),
// and mosquitto_pub to publish with QoS 1. `available` is false when the binaries are missing
// (CI installs them from .ci/debian-packages).
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { createConnection } from "node:net";
import os from "node:os";
import path from "node:path";
import { freePort } from "../../../bench/lib/worker";
import { waitFor } from "./harness";

const MOSQUITTO = ["/usr/sbin/mosquitto", "/usr/bin/mosquitto"].find((p) => existsSync(p));
const MOSQUITTO_PUB = ["/usr/bin/mosquitto_pub"].find((p) => existsSync(p));

export const mosquittoAvailable = MOSQUITTO !== undefined && MOSQUITTO_PUB !== undefined;
export const MOSQUITTO_MISSING = "mosquitto and mosquitto_pub are not installed (Debian mosquitto, mosquitto-clients)";

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.on("error", () => resolve(false));
  });

export class Mosquitto {
  private child: ChildProcess | undefined;
  private log = "";

  private constructor(
    readonly port: number,
    private readonly dir: string,
  ) {}

  get url(): string {
    return `mqtt://127.0.0.1:${this.port}`;
  }

  /** Starts a broker whose config and persistence live in `dir`. */
  static async start(dir: string): Promise<Mosquitto> {
    if (!MOSQUITTO) throw new Error(MOSQUITTO_MISSING);
    const broker = new Mosquitto(await freePort(), dir);
    const config = [
      `listener ${broker.port} 127.0.0.1`,
      "allow_anonymous true",
      "persistence true",
      `persistence_location ${dir}/`,
      // Started as root it would switch to the mosquitto user, which cannot write the test's directory.
      `user ${os.userInfo().username}`,
      // The default of 1000 queued messages per offline session is less than a test publishes.
      "max_queued_messages 100000",
      "log_dest stderr",
      "log_type error",
      "log_type warning",
    ];
    writeFileSync(path.join(dir, "mosquitto.conf"), `${config.join("\n")}\n`);
    await broker.run();
    return broker;
  }

  private async run(): Promise<void> {
    const child = spawn(MOSQUITTO as string, ["-c", path.join(this.dir, "mosquitto.conf")], { stdio: ["ignore", "ignore", "pipe"] });
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      this.log = (this.log + chunk).slice(-10_000);
    });
    this.child = child;
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`mosquitto exited with ${child.exitCode}: ${this.log}`);
        return listening(this.port);
      },
      `mosquitto on port ${this.port}`,
      10_000,
      50,
    );
  }

  /** SIGTERM (mosquitto writes its persistence file on the way out) and start again on the same port and file. */
  async restart(): Promise<void> {
    await this.stop();
    await this.run();
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }

  /** Publishes each payload as one QoS 1 message on `topic` (mosquitto_pub -l: one message per line). */
  async publish(topic: string, payloads: string[]): Promise<void> {
    if (!MOSQUITTO_PUB) throw new Error(MOSQUITTO_MISSING);
    const args = ["-h", "127.0.0.1", "-p", String(this.port), "-q", "1", "-t", topic, "-l", "-i", `pub-${process.pid}-${Date.now()}`];
    const child = spawn(MOSQUITTO_PUB, args, { stdio: ["pipe", "ignore", "pipe"] });
    let stderr = "";
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    child.stdin?.end(`${payloads.map((p) => p.replace(/\n/g, " ")).join("\n")}\n`);
    const code = await exited;
    if (code !== 0) throw new Error(`mosquitto_pub exited with ${code}: ${stderr}`);
  }
}
