// Listener configuration: BRIDGE_LISTENERS picks the transports; the MLLP_* variables of earlier
// bridges still configure the MLLP listener unchanged.
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../src/config";

const required = { WORKER_URL: "http://127.0.0.1:1", BRIDGE_API_KEY: "k", BRIDGE_ORG_ID: "org" };

describe("listener configuration", () => {
  it("starts the MLLP listener by default, configured by the MLLP_* variables", () => {
    const env = { ...required, MLLP_PORT: "3575", MLLP_HOST: "0.0.0.0", MLLP_LISTENER: "lab", MLLP_ALWAYS_ACK: "true", MLLP_ENCODING: "latin1" };
    expect(loadConfig([], env).listeners).toEqual([
      {
        kind: "mllp",
        name: "lab",
        host: "0.0.0.0",
        port: 3575,
        tls: undefined,
        encoding: "latin1",
        maxFrameBytes: 8 * 1024 * 1024,
        hl7: { alwaysAck: true },
      },
    ]);
  });

  it("takes the list from --listeners or BRIDGE_LISTENERS and refuses unknown or repeated names", () => {
    expect(loadConfig(["--listeners", " MLLP "], required).listeners.map((l) => l.kind)).toEqual(["mllp"]);
    expect(() => loadConfig([], { ...required, BRIDGE_LISTENERS: "mllp,amqp" })).toThrow(ConfigError);
    expect(() => loadConfig([], { ...required, BRIDGE_LISTENERS: "mllp,amqp" })).toThrow(/unknown listener amqp/);
    expect(() => loadConfig([], { ...required, BRIDGE_LISTENERS: "mllp,mllp" })).toThrow(/twice/);
  });

  it("configures the MQTT listener: the organization's topic filter and a fixed client id by default", () => {
    const [mqtt] = loadConfig([], { ...required, BRIDGE_LISTENERS: "mqtt", MQTT_URL: "mqtts://broker.site:8883" }).listeners;
    expect(mqtt).toMatchObject({ kind: "mqtt", name: "mqtt", url: "mqtts://broker.site:8883", topic: `rpm/${required.BRIDGE_ORG_ID}/devices/+/obs`, clientId: `cdis-bridge-${required.BRIDGE_ORG_ID}` });
    expect(() => loadConfig([], { ...required, BRIDGE_LISTENERS: "mqtt", MQTT_URL: "http://broker" })).toThrow(/MQTT_URL/);
  });
});
