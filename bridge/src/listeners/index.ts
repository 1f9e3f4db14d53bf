// Builds the configured listeners, each with an intake through its protocol's adapter.
// A new transport is one more case here and one folder next to mllp/.
import type { ListenerConfig } from "../config";
import { Intake } from "../intake";
import type { Listener } from "../listener";
import type { Logger } from "../log";
import type { MessageQueue } from "../message-queue";
import type { Metrics } from "../metrics";
import { deviceReadingsAdapter } from "../protocols/device-readings/adapter";
import { hl7Adapter } from "../protocols/hl7/adapter";
import { x12Adapter } from "../protocols/x12/adapter";
import { folderListener } from "./folder/listener";
import { mllpListener } from "./mllp/listener";
import { mqttListener } from "./mqtt/listener";

export interface ListenerDeps {
  queue: MessageQueue;
  metrics: Metrics;
  log: Logger;
  /** Called after each newly queued message, to wake the forwarder. */
  onEnqueued: () => void;
  /** The organization the bridge serves (MQTT topics name it). */
  orgId: string;
}

export function createListener(config: ListenerConfig, deps: ListenerDeps): Listener {
  const { queue, metrics, log, onEnqueued, orgId } = deps;
  switch (config.kind) {
    case "mllp": {
      const adapter = hl7Adapter(config.hl7);
      const intake = new Intake(queue, metrics, log, adapter, config.name, onEnqueued);
      return mllpListener(config, adapter.protocol, intake, log);
    }
    case "x12-folder": {
      const intake = new Intake(queue, metrics, log, x12Adapter, config.name, onEnqueued);
      return folderListener(config, x12Adapter.protocol, intake, log);
    }
    case "mqtt": {
      const adapter = deviceReadingsAdapter({ orgId });
      const intake = new Intake(queue, metrics, log, adapter, config.name, onEnqueued);
      return mqttListener(config, adapter.protocol, intake, log);
    }
  }
}
