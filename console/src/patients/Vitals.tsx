// Vitals per metric: the chart and the window's minimum, maximum and average, and the vendor's
// summaries of the metric (a day's average, a workout's average) charted apart from the samples.
import { useState } from "react";
import { EmptyState, ErrorMessage, Loading } from "../components/States";
import { withQuery } from "../lib/api";
import { useApi } from "../lib/use-api";
import { VitalsChart } from "./VitalsChart";

const METRICS = ["heart_rate", "spo2", "respiratory_rate", "hrv", "steps", "calories", "active_minutes", "distance", "sleep", "sleep_efficiency", "stress", "body_battery", "blood_glucose"];

interface VitalsResult {
  metric: string;
  unit: string;
  resolution: string;
  data_points: { timestamp: string; value: number }[];
  summary: { min: number | null; max: number | null; average: number | null; count: number };
  aggregates: { statistic: string; resolution: string; data_points: { timestamp: string; value: number }[] }[];
}

const fmt = (n: number | null) => (n === null ? "—" : Number(n.toFixed(2)).toString());

export function Vitals({ patientId }: { patientId: string }) {
  const [metric, setMetric] = useState("heart_rate");
  const [days, setDays] = useState(7);
  const vitals = useApi<VitalsResult>(withQuery(`/api/v1/patients/${encodeURIComponent(patientId)}/vitals`, { metric, days }));
  const v = vitals.data;
  return (
    <section aria-label="Vitals">
      <div className="inline-form">
        <label>
          Metric
          <select name="metric" value={metric} onChange={(e) => setMetric(e.target.value)}>
            {METRICS.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </label>
        <label>
          Days
          <select name="days" value={days} onChange={(e) => setDays(Number(e.target.value))}>
            {[1, 7, 30, 90, 365].map((d) => (
              <option key={d} value={d}>
                {d}
              </option>
            ))}
          </select>
        </label>
      </div>
      {vitals.error && <ErrorMessage error={vitals.error} />}
      {vitals.loading && !v && <Loading what="vitals" />}
      {v && v.data_points.length === 0 && v.aggregates.length === 0 && (
        <EmptyState title={`No ${metric} readings in the last ${days} days`}>
          <p>Choose another metric or a longer window, or sync the patient's devices on the Devices page.</p>
        </EmptyState>
      )}
      {v && v.data_points.length > 0 && (
        <>
          <dl className="vitals-summary">
            <dt>Minimum</dt>
            <dd>
              {fmt(v.summary.min)} {v.unit}
            </dd>
            <dt>Maximum</dt>
            <dd>
              {fmt(v.summary.max)} {v.unit}
            </dd>
            <dt>Average</dt>
            <dd>
              {fmt(v.summary.average)} {v.unit}
            </dd>
            <dt>Readings</dt>
            <dd>
              {v.summary.count} ({v.resolution})
            </dd>
          </dl>
          <VitalsChart label={v.metric} unit={v.unit} points={v.data_points} />
        </>
      )}
      {v?.aggregates.map((a) => (
        <section key={a.statistic} aria-label={`${v.metric} ${a.statistic}`}>
          <h3>
            {v.metric} {a.statistic}, as the vendor reports it ({a.data_points.length} {a.resolution === "raw" ? (a.data_points.length === 1 ? "value" : "values") : `${a.resolution}ly points`})
          </h3>
          <VitalsChart label={`${v.metric} ${a.statistic}`} unit={v.unit} points={a.data_points} />
        </section>
      ))}
    </section>
  );
}
