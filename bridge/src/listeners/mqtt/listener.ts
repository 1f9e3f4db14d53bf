// The MQTT listener: subscribes to the site's broker with a persistent session (clean=false, a
// fixed client id, MQTT 3.1.1 so the broker keeps the session and queues QoS 1 messages while
// the bridge is away) and hands each message to its intake. The PUBACK goes out only once the
// intake has committed the message (or its rejection) to the queue: mqtt.js sends a QoS 1
// PUBACK when `handleMessage`'s callback is called, and reads the next packet only then, so
// messages are taken one at a time, in the broker's order. A message that could not be stored
// is never acknowledged: the connection is dropped and the broker redelivers it.
import type { IClientOptions, MqttClient, Packet } from "mqtt";
import type { Listener, MessageSink } from "../../listener";
import type { Logger } from "../../log";

export interface MqttListenerOptions {
  name: string;
  /** mqtt://host:port or mqtts://host:port */
  url: string;
  clientId: string;
  topic: string;
  username?: string;
  password?: string;
  /** How long start() waits for the first subscription before going on (it keeps reconnecting). */
  connectTimeoutMs: number;
  reconnectMs: number;
}

/** What the intake hands back when it could not store the message (the adapter's "error" outcome). */
const NOT_STORED = "error";

export function mqttListener(options: MqttListenerOptions, protocol: string, intake: MessageSink, log: Logger): Listener {
  let client: MqttClient | undefined;
  let stopped = false;
  let inFlight: Promise<unknown> = Promise.resolve();
  const source = options.url.replace(/\/\/[^@/]*@/, "//");

  function take(packet: Packet, done: (error?: Error) => void): void {
    if (packet.cmd !== "publish") {
      done();
      return;
    }
    const text = JSON.stringify({ topic: packet.topic, payload: Buffer.from(packet.payload).toString("utf8") });
    const stored = intake.accept(text, source);
    inFlight = stored.catch(() => undefined);
    stored.then(
      (reply) => {
        if (stopped) return;
        if (reply !== NOT_STORED) {
          done();
          return;
        }
        log.error("mqtt_not_stored", { topic: packet.topic, hint: "not acknowledged: the broker redelivers it after reconnecting" });
        client?.stream.destroy();
      },
      (error: unknown) => {
        log.error("mqtt_intake_failed", { topic: packet.topic, error: String(error) });
        client?.stream.destroy();
      },
    );
  }

  return {
    name: options.name,
    kind: "mqtt",
    protocol,
    async start() {
      const clientOptions: IClientOptions = {
        clientId: options.clientId,
        clean: false,
        protocolVersion: 4,
        reconnectPeriod: options.reconnectMs,
        connectTimeout: options.connectTimeoutMs,
        ...(options.username ? { username: options.username } : {}),
        ...(options.password ? { password: options.password } : {}),
      };
      // Loaded here, not at import: a bridge without an MQTT listener does not pay for the client (~0.4 s).
      const { connect } = await import("mqtt");
      const c = connect(options.url, clientOptions);
      client = c;
      c.handleMessage = take;
      let subscribed: () => void = () => {};
      const firstSubscription = new Promise<void>((resolve) => {
        subscribed = resolve;
      });
      c.on("connect", (connack) => {
        log.info("mqtt_connected", { url: source, session_present: connack.sessionPresent });
        // A kept session keeps its subscription; subscribing again is harmless and covers a broker that lost it.
        c.subscribe(options.topic, { qos: 1 }, (error, granted) => {
          const qos = granted?.[0]?.qos;
          if (error || qos === undefined || qos > 2) {
            log.error("mqtt_subscribe_failed", { topic: options.topic, error: error ? String(error) : `granted ${qos}` });
            return;
          }
          if (qos < 1) log.warn("mqtt_qos_downgraded", { topic: options.topic, qos });
          log.info("mqtt_subscribed", { topic: options.topic, qos });
          subscribed();
        });
      });
      c.on("offline", () => log.warn("mqtt_offline", { url: source }));
      c.on("error", (error) => log.warn("mqtt_error", { url: source, error: error.message }));
      const waited = await Promise.race([
        firstSubscription.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), options.connectTimeoutMs).unref()),
      ]);
      if (!waited) log.warn("mqtt_not_yet_subscribed", { url: source, topic: options.topic, hint: "still retrying in the background" });
      return { url: `${source}#${options.topic}`, port: null };
    },
    async stop() {
      stopped = true;
      // Forced: no DISCONNECT flush of unacknowledged messages; the broker keeps them for this session.
      await new Promise<void>((resolve) => (client ? client.end(true, {}, () => resolve()) : resolve()));
      await inFlight;
    },
  };
}
