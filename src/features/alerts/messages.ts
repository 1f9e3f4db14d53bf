// The one-line text of an alert (DetectedIssue.detail, the Communications' payload, the API).
import type { AlertRuleRow } from "./tables";

const num = (n: number) => String(Math.round(n * 100) / 100);
const withUnit = (n: number, unit?: string) => (unit ? `${num(n)} ${unit}` : num(n));

function duration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 120) return `${minutes} minutes`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} hours` : `${Math.round(hours / 24)} days`;
}

export function valueMessage(rule: AlertRuleRow, fired: { value: number; limit: number; reading: number; from?: number }, unit?: string): string {
  const metric = rule.metric ?? "reading";
  switch (rule.kind) {
    case "high_value":
      return `${metric} ${withUnit(fired.value, unit)} is above the limit ${withUnit(fired.limit, unit)}`;
    case "low_value":
      return `${metric} ${withUnit(fired.value, unit)} is below the limit ${withUnit(fired.limit, unit)}`;
    case "score_below":
      return `${metric} ${num(fired.value)} is below the threshold ${num(fired.limit)}`;
    default: {
      const span = duration((rule.params.span_minutes ?? 0) * 60_000);
      const from = fired.from === undefined ? "" : ` from ${withUnit(fired.from, unit)}`;
      return `${metric} changed by ${withUnit(fired.value, unit)}${from} to ${withUnit(fired.reading, unit)} within ${span} (limit ${withUnit(fired.limit, unit)})`;
    }
  }
}

export function absenceMessage(rule: AlertRuleRow, since: number, now: number, reason: "no_data" | "no_transmission"): string {
  const what = rule.metric ? `${rule.metric} readings` : "readings";
  const from = rule.deviceId ? ` from device ${rule.deviceId}` : "";
  const cause = reason === "no_transmission" ? " (the device has not synced either)" : "";
  return `No ${what}${from} for ${duration(now - since)}, since ${new Date(since).toISOString()}${cause}`;
}
