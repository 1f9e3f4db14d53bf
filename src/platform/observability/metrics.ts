// Metrics through Workers Analytics Engine (binding METRICS; the local runtimes simulate it).
// One data point per event, its first blob naming the event kind, so every query filters on
// blob1; docs/operations.md lists the queries (rate-limit refusals are requests answered 429
// RATE_LIMITED). Without the binding nothing is written.
import { optionalBinding } from "../settings";

export type MetricEvent =
  /** blobs: org, route, method, status class, error code; doubles: duration ms, status. */
  | { kind: "request"; org: string; route: string; method: string; status: number; errorCode: string; durationMs: number }
  /** blobs: org, pipeline, status, trigger; doubles: duration ms, nodes run. */
  | { kind: "execution"; org: string; pipeline: string; status: string; trigger: string; durationMs: number; nodes: number }
  /** blobs: org, protocol, sender, status; doubles: messages. */
  | { kind: "inbound"; org: string; protocol: string; sender: string; status: string; count: number }
  /** blobs: org, status; doubles: resources, duration ms. */
  | { kind: "export"; org: string; status: string; resources: number; durationMs: number }
  /** One attempt of a destination queue. blobs: org, destination, status (delivered, retry, dead); doubles: duration ms. */
  | { kind: "outbound"; org: string; destination: string; status: string; durationMs: number };

export function dataPoint(e: MetricEvent): AnalyticsEngineDataPoint {
  switch (e.kind) {
    case "request":
      return { indexes: [e.org], blobs: [e.kind, e.org, e.route, e.method, `${Math.floor(e.status / 100)}xx`, e.errorCode], doubles: [e.durationMs, e.status] };
    case "execution":
      return { indexes: [e.org], blobs: [e.kind, e.org, e.pipeline, e.status, e.trigger], doubles: [e.durationMs, e.nodes] };
    case "inbound":
      return { indexes: [e.org], blobs: [e.kind, e.org, e.protocol, e.sender, e.status], doubles: [e.count] };
    case "export":
      return { indexes: [e.org], blobs: [e.kind, e.org, e.status], doubles: [e.resources, e.durationMs] };
    case "outbound":
      return { indexes: [e.org], blobs: [e.kind, e.org, e.destination, e.status], doubles: [e.durationMs] };
  }
}

/** Writes one event; a metrics failure never fails the work it measures. */
export function recordMetric(env: object, event: MetricEvent): void {
  const dataset = optionalBinding<AnalyticsEngineDataset>(env, "METRICS");
  if (!dataset) return;
  try {
    dataset.writeDataPoint(dataPoint(event));
  } catch {
    // Analytics Engine drops points under pressure by design; so do we.
  }
}
