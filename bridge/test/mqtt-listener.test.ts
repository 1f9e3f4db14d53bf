// The MQTT listener against a real mosquitto: the PUBACK waits for the intake. A message the
// intake has not committed yet, or could not store, is not acknowledged, so the broker delivers
// it again to the same persistent session (a new connection with the same client id).
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Listener, MessageSink } from "../src/listener";
import { mqttListener } from "../src/listeners/mqtt/listener";
import { createLogger } from "../src/log";
import { tempDir, waitFor } from "./support/harness";
import { MOSQUITTO_MISSING, Mosquitto, mosquittoAvailable } from "./support/mosquitto";

if (!mosquittoAvailable) console.warn(`mqtt-listener skipped: ${MOSQUITTO_MISSING}`);

const log = createLogger("error");
const dir = tempDir("mosquitto-listener-");
let broker: Mosquitto | undefined;
const running: Listener[] = [];

/** A sink that records every message and answers with `reply` (a promise it may hold). */
function sink(reply: (text: string) => Promise<string | null>): MessageSink & { seen: string[] } {
  const seen: string[] = [];
  return {
    seen,
    accept: (text) => {
      seen.push((JSON.parse(text) as { payload: string }).payload);
      return reply(text);
    },
    refuse: () => null,
  };
}

async function listen(clientId: string, into: MessageSink): Promise<Listener> {
  if (!broker) throw new Error("no broker");
  const options = { name: "mqtt", url: broker.url, clientId, topic: "rpm/org-l/devices/+/obs", connectTimeoutMs: 5000, reconnectMs: 100 };
  const listener = mqttListener(options, "device-readings", into, log);
  await listener.start();
  running.push(listener);
  return listener;
}

beforeAll(async () => {
  if (mosquittoAvailable) broker = await Mosquitto.start(dir.dir);
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((l) => l.stop()));
});
afterAll(async () => {
  await broker?.stop();
  dir.remove();
});

describe.skipIf(!mosquittoAvailable)("MQTT listener", () => {
  it("does not acknowledge a message before the intake commits it: the session gets it again", async () => {
    let commit: (reply: string) => void = () => {};
    const held = sink(() => new Promise<string | null>((resolve) => (commit = resolve)));
    const first = await listen("listener-held", held);
    await broker?.publish("rpm/org-l/devices/d1/obs", ["m1"]);
    await waitFor(() => held.seen.length === 1, "the message handed to the intake");
    // The connection goes while the commit is still running (a crash would look the same to the broker).
    const stopping = first.stop();
    commit("accepted");
    await stopping;
    const stored = sink(async () => "accepted");
    await listen("listener-held", stored);
    await waitFor(() => stored.seen.length === 1, "the unacknowledged message delivered again", 10_000);
    expect(stored.seen).toEqual(["m1"]);
  });

  it("acknowledges a committed message: a new connection of the session does not get it again", async () => {
    const stored = sink(async () => "accepted");
    const first = await listen("listener-acked", stored);
    await broker?.publish("rpm/org-l/devices/d1/obs", ["a1", "a2"]);
    await waitFor(() => stored.seen.length === 2, "both messages");
    await first.stop();
    await broker?.publish("rpm/org-l/devices/d1/obs", ["a3"]);
    const again = sink(async () => "accepted");
    await listen("listener-acked", again);
    await waitFor(() => again.seen.length >= 1, "the message published while away", 10_000);
    await new Promise((r) => setTimeout(r, 300));
    expect(again.seen).toEqual(["a3"]);
  });

  it("drops the connection when the intake could not store a message, and takes it again on reconnect", async () => {
    let failures = 1;
    const flaky = sink(async () => (failures-- > 0 ? "error" : "accepted"));
    await listen("listener-flaky", flaky);
    await broker?.publish("rpm/org-l/devices/d1/obs", ["f1", "f2"]);
    await waitFor(() => flaky.seen.filter((p) => p === "f2").length === 1, "the second message", 10_000);
    expect(flaky.seen).toEqual(["f1", "f1", "f2"]);
  });
});
