// The device and alert API's answers as the console reads them (see the OpenAPI document).
export interface DeviceIntegration {
  id: string;
  platform: string;
  name: string;
  status: string;
  credentials: Record<string, string>;
  settings: Record<string, string>;
  created_at: string;
}

export interface PatientDevice {
  device_id: string;
  patient_id: string;
  name: string;
  platform: string;
  integration_id: string | null;
  platform_device_id: string | null;
  status: string;
  last_sync_at: string | null;
}

export interface SyncLog {
  sync_id: string;
  state: "queued" | "running" | "completed" | "partially_failed" | "failed";
  from_date: string;
  to_date: string;
  data_types: { data_type: string; state: string; pages_fetched: number; readings_received: number; observations_created: number; duplicates_skipped: number; readings_rejected: number; errors: { reason: string }[] }[];
  started_at: string | null;
  finished_at: string | null;
}

export const ALERT_KINDS = ["high_value", "low_value", "rapid_change", "data_absence", "score_below"] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export const KIND_LABELS: Record<AlertKind, string> = {
  high_value: "High value",
  low_value: "Low value",
  rapid_change: "Rapid change",
  data_absence: "No data (absence)",
  score_below: "Score below",
};

export interface AlertRule {
  id: string;
  name: string;
  patient_id: string;
  metric: string | null;
  device_id: string | null;
  kind: AlertKind;
  threshold?: number;
  amount?: number;
  direction?: "rise" | "drop" | "either";
  span_minutes?: number;
  recipients: "patient" | "care_team" | "both";
  severity: "high" | "moderate" | "low";
  pipeline_id: string | null;
  enabled: boolean;
}

export interface Alert {
  id: string;
  rule_id: string;
  patient_id: string;
  kind: AlertKind;
  metric: string | null;
  severity: string;
  state: "active" | "acknowledged" | "resolved";
  message: string;
  started_at: string;
}
