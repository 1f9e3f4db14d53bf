// The baseline of the device benchmarks: the Observations the ingest path writes for some
// readings, as one plain conditional-create FHIR transaction (in-process or POSTed).
import { normaliseReading } from "../../src/features/devices/metrics/normalise";
import { identifierQuery, toObservation } from "../../src/features/devices/observation";
import type { Reading } from "../../src/features/devices/reading";
import type { Bundle, Resource } from "../../src/features/fhir/port";

export function plainBundle(readings: readonly Reading[], device: { id: string; name: string }): Bundle {
  return {
    resourceType: "Bundle",
    type: "transaction",
    entry: readings.map((r) => {
      const n = normaliseReading(r);
      if (!n.ok) throw new Error(JSON.stringify(n.errors));
      return { resource: toObservation(n.reading, device) as Resource, request: { method: "POST", url: "Observation", ifNoneExist: identifierQuery(n.reading.identifier) } };
    }),
  };
}
