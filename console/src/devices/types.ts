// The device and alert API's answers as the console reads them: the generated client's schemas
// (the OpenAPI document), plus the alert kinds' labels.
import type { components } from "../../../clients/typescript/api.generated";

type Schemas = components["schemas"];
export type DeviceIntegration = Schemas["DeviceIntegration"];

export type PatientDevice = Schemas["PatientDevice"];

export type PlatformDescriptor = Schemas["DevicePlatformDescriptor"];

export type SyncLog = Schemas["DeviceSyncLog"];

export const ALERT_KINDS = ["high_value", "low_value", "rapid_change", "data_absence", "score_below"] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export const KIND_LABELS: Record<AlertKind, string> = {
  high_value: "High value",
  low_value: "Low value",
  rapid_change: "Rapid change",
  data_absence: "No data (absence)",
  score_below: "Score below",
};

export type AlertRule = Schemas["AlertRule"];

export type Alert = Schemas["Alert"];
