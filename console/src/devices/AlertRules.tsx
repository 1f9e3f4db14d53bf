// A device panel's threshold alert rules: the list (paged) and a form for each of the five kinds,
// showing only the fields the chosen kind takes; recipients and an optional pipeline.
import { type FormEvent, useState } from "react";
import { PAGE_SIZE, Pager } from "../components/Pager";
import { EmptyState, ErrorMessage } from "../components/States";
import { api, withQuery } from "../lib/api";
import { useSession } from "../lib/session";
import { useAction } from "../lib/use-action";
import { useApi } from "../lib/use-api";
import { ALERT_KINDS, type AlertKind, type AlertRule, KIND_LABELS } from "./types";
import { TableHead } from "../components/TableHead";

/** The rule in words, as the list shows it. */
function describe(r: AlertRule): string {
  const metric = r.metric ?? "any reading";
  switch (r.kind) {
    case "high_value":
      return `${metric} above ${r.threshold}`;
    case "low_value":
      return `${metric} below ${r.threshold}`;
    case "score_below":
      return `${metric} score below ${r.threshold}`;
    case "rapid_change":
      return `${metric} ${r.direction ?? "either"} by ${r.amount} within ${r.span_minutes} min`;
    case "data_absence":
      return `no ${r.metric ?? "data"} for ${r.span_minutes} min`;
  }
}

interface Draft {
  kind: AlertKind;
  metric: string;
  threshold: string;
  amount: string;
  direction: "rise" | "drop" | "either";
  span: string;
  recipients: "patient" | "care_team" | "both";
  severity: "high" | "moderate" | "low";
  pipeline: string;
}

const EMPTY: Draft = { kind: "high_value", metric: "heart_rate", threshold: "", amount: "", direction: "either", span: "", recipients: "care_team", severity: "moderate", pipeline: "" };

/** The API body for a draft: only the fields its kind takes. */
function bodyOf(d: Draft, patientId: string, deviceId: string): Record<string, unknown> {
  const body: Record<string, unknown> = { patient_id: patientId, device_id: deviceId, kind: d.kind, recipients: d.recipients, severity: d.severity };
  if (d.metric.trim()) body.metric = d.metric.trim();
  if (d.kind === "high_value" || d.kind === "low_value" || d.kind === "score_below") body.threshold = Number(d.threshold);
  if (d.kind === "rapid_change") Object.assign(body, { amount: Number(d.amount), direction: d.direction });
  if (d.kind === "rapid_change" || d.kind === "data_absence") body.span_minutes = Number(d.span);
  if (d.pipeline.trim()) body.pipeline_id = d.pipeline.trim();
  return body;
}

export function AlertRules({ patientId, deviceId }: { patientId: string; deviceId: string }) {
  const { can } = useSession();
  const [offset, setOffset] = useState(0);
  const rules = useApi<{ alert_rules: AlertRule[]; total_count: number }>(withQuery("/api/v1/alert-rules", { patient_id: patientId, device_id: deviceId, limit: PAGE_SIZE, offset }));
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const save = useAction();
  const set = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));
  const k = draft.kind;

  function submit(e: FormEvent) {
    e.preventDefault();
    void save.run(async () => {
      await api("/api/v1/alert-rules", { method: "POST", body: bodyOf(draft, patientId, deviceId) });
      setDraft({ ...EMPTY, kind: draft.kind });
      rules.reload();
    });
  }

  function remove(r: AlertRule) {
    if (!window.confirm(`Delete the alert rule "${r.name}"?`)) return;
    void save.run(async () => {
      await api(`/api/v1/alert-rules/${encodeURIComponent(r.id)}`, { method: "DELETE" });
      rules.reload();
    });
  }

  return (
    <section className="alert-rules" aria-label={`Alert rules of ${deviceId}`}>
      <h4>Alert rules</h4>
      {rules.error && <ErrorMessage error={rules.error} />}
      {rules.data?.total_count === 0 && (
        <EmptyState title="No alert rules">
          <p>{can("alerts:manage") ? "Add a rule below: a limit, a rapid change, a silence or a low score raises an alert to the care team." : "An administrator or clinician can add rules here."}</p>
        </EmptyState>
      )}
      {rules.data && rules.data.total_count > 0 && (
        <>
          <table>
            <caption className="visually-hidden">Alert rules</caption>
            <TableHead columns={["Rule", "Kind", "Condition", "Recipients", "Severity"]} actions />
            <tbody>
              {rules.data.alert_rules.map((r) => (
                <tr key={r.id}>
                  <td>{r.name}</td>
                  <td>{KIND_LABELS[r.kind]}</td>
                  <td>{describe(r)}</td>
                  <td>{r.recipients.replace("_", " ")}</td>
                  <td>{r.severity}</td>
                  <td>
                    {can("alerts:manage") && (
                      <button type="button" onClick={() => remove(r)} aria-label={`Delete ${r.name}`}>
                        Delete
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager label="Alert rules" offset={offset} total={rules.data.total_count} onChange={setOffset} />
        </>
      )}
      {can("alerts:manage") && (
        <form className="inline-form" onSubmit={submit} aria-label="New alert rule">
          <label>
            Kind
            <select name="kind" value={k} onChange={(e) => set({ kind: e.target.value as AlertKind })}>
              {ALERT_KINDS.map((kind) => (
                <option key={kind} value={kind}>
                  {KIND_LABELS[kind]}
                </option>
              ))}
            </select>
          </label>
          <label>
            Metric{k === "data_absence" ? " (optional)" : ""}
            <input name="metric" value={draft.metric} onChange={(e) => set({ metric: e.target.value })} required={k !== "data_absence"} pattern="[a-z][a-z0-9_]{0,63}" />
          </label>
          {(k === "high_value" || k === "low_value" || k === "score_below") && (
            <label>
              Threshold
              <input name="threshold" type="number" step="any" value={draft.threshold} onChange={(e) => set({ threshold: e.target.value })} required />
            </label>
          )}
          {k === "rapid_change" && (
            <>
              <label>
                Change of
                <input name="amount" type="number" step="any" min="0" value={draft.amount} onChange={(e) => set({ amount: e.target.value })} required />
              </label>
              <label>
                Direction
                <select name="direction" value={draft.direction} onChange={(e) => set({ direction: e.target.value as Draft["direction"] })}>
                  <option value="either">either</option>
                  <option value="rise">rise</option>
                  <option value="drop">drop</option>
                </select>
              </label>
            </>
          )}
          {(k === "rapid_change" || k === "data_absence") && (
            <label>
              {k === "rapid_change" ? "Within (minutes)" : "Silence of (minutes)"}
              <input name="span_minutes" type="number" min={k === "rapid_change" ? 1 : 5} max={k === "rapid_change" ? 10080 : 43200} value={draft.span} onChange={(e) => set({ span: e.target.value })} required />
            </label>
          )}
          <label>
            Recipients
            <select name="recipients" value={draft.recipients} onChange={(e) => set({ recipients: e.target.value as Draft["recipients"] })}>
              <option value="care_team">care team</option>
              <option value="patient">patient</option>
              <option value="both">both</option>
            </select>
          </label>
          <label>
            Severity
            <select name="severity" value={draft.severity} onChange={(e) => set({ severity: e.target.value as Draft["severity"] })}>
              <option value="high">high</option>
              <option value="moderate">moderate</option>
              <option value="low">low</option>
            </select>
          </label>
          <label>
            Pipeline id (optional)
            <input name="pipeline_id" value={draft.pipeline} onChange={(e) => set({ pipeline: e.target.value })} />
          </label>
          <button type="submit" disabled={save.busy}>
            Add rule
          </button>
        </form>
      )}
      {save.failure && <ErrorMessage error={save.failure} />}
    </section>
  );
}
