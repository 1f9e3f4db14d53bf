// A device reading as every source delivers it (vendor webhook, backfill page, companion-app
// upload, MQTT message), before it becomes an Observation. Adapters produce these and nothing
// else; codes, units, dedup and alerting happen once, downstream.

/** Service metric names (spec 2.8/2.9); codes and units for each live in the metric table. */
export type Metric = string;

export interface ReadingComponent {
  readonly metric: Metric;
  /** Absent when the source sent a sentinel or an unscorable value: never a made-up number. */
  readonly value?: number;
  /** As the source sent it (e.g. "lb", "kJ", "mmol/L", "fraction"); normalised to UCUM downstream. */
  readonly unit: string;
}

export type ReadingTime =
  | { readonly at: string } // an instant, ISO 8601 with offset
  | { readonly start: string; readonly end: string }; // an interval aggregate (daily steps, a night's sleep)

export interface Reading {
  /** Our Patient id (FHIR logical id in the org's store). */
  readonly patientId: string;
  /** Our device link id (the FHIR Device the reading came from). */
  readonly deviceId: string;
  readonly metric: Metric;
  /** One value, or components (blood pressure, spirometry), or neither when absent (then `absentReason`). */
  readonly value?: number;
  readonly components?: readonly ReadingComponent[];
  readonly unit: string;
  readonly time: ReadingTime;
  /** Platform kind (spec 2.10) or "mqtt" / "manual". */
  readonly platform: string;
  /**
   * The source's own id for the record. A vendor's id is unique only within its user, a manual or
   * companion source's within its device: with the platform, the device link and the metric it
   * makes the reading idempotent (`readingIdentifier`).
   */
  readonly sourceRecordId: string;
  /** Why there is no value (sentinel, unscorable, device error), as FHIR data-absent-reason codes. */
  readonly absentReason?: "error" | "not-performed" | "unknown" | "asked-declined";
  /** Extra facts the source gives (CGM trend direction, sleep stage, activity type), kept as text. */
  readonly attributes?: Readonly<Record<string, string>>;
  /**
   * When the value aggregates a window of samples (a vendor roll-up's mean): the window's minimum
   * and maximum in `unit`, kept as components coded with FHIR's observation-statistics.
   */
  readonly statistics?: { readonly minimum?: number; readonly maximum?: number };
  /** A waveform (ECG): samples at a fixed period, becomes valueSampledData. */
  readonly samples?: { readonly periodMs: number; readonly values: readonly number[]; readonly origin?: number };
}

/**
 * The Observation identifier a reading is idempotent on: platform|device link|source record id|metric.
 * The organization is the store's; the device link stands for the vendor account or device whose
 * records the id is unique among, and belongs to one patient, so two patients' readings never meet
 * (a record id alone collides across a vendor's users, and every manual source may say "rec-1").
 */
export const readingIdentifier = (r: Pick<Reading, "platform" | "deviceId" | "sourceRecordId" | "metric">): string =>
  `${r.platform}|${r.deviceId}|${r.sourceRecordId}|${r.metric}`;
