// Alerts by state (active first) with acknowledge and resolve; paged.
import { useState } from "react";
import { PAGE_SIZE, Pager } from "../components/Pager";
import { EmptyState, ErrorMessage, Loading } from "../components/States";
import { api, withQuery } from "../lib/api";
import { useSession } from "../lib/session";
import { useAction } from "../lib/use-action";
import { useApi } from "../lib/use-api";
import { type Alert, KIND_LABELS } from "./types";
import { TableHead } from "../components/TableHead";

export function Alerts({ patientId }: { patientId?: string }) {
  const { can } = useSession();
  const [state, setState] = useState<Alert["state"]>("active");
  const [offset, setOffset] = useState(0);
  const list = useApi<{ alerts: Alert[]; total_count: number }>(withQuery("/api/v1/alerts", { state, patient_id: patientId, limit: PAGE_SIZE, offset }));
  const act = useAction();

  function move(a: Alert, to: "acknowledge" | "resolve") {
    void act.run(async () => {
      await api(`/api/v1/alerts/${encodeURIComponent(a.id)}/${to}`, { method: "POST", body: {} });
      list.reload();
    });
  }

  return (
    <section aria-labelledby="alerts-h">
      <h2 id="alerts-h">Alerts</h2>
      <div className="inline-form">
      <label>
        State{" "}
        <select
          name="alert_state"
          value={state}
          onChange={(e) => {
            setState(e.target.value as Alert["state"]);
            setOffset(0);
          }}
        >
          <option value="active">active</option>
          <option value="acknowledged">acknowledged</option>
          <option value="resolved">resolved</option>
        </select>
      </label>
      </div>
      {act.failure && <ErrorMessage error={act.failure} />}
      {list.error && <ErrorMessage error={list.error} />}
      {list.loading && !list.data && <Loading what="alerts" />}
      {list.data?.total_count === 0 && (
        <EmptyState title={`No ${state} alerts`}>
          <p>Alerts appear here when a device reading breaks one of the alert rules set on a device panel.</p>
        </EmptyState>
      )}
      {list.data && list.data.total_count > 0 && (
        <>
          <table>
            <caption className="visually-hidden">Alerts</caption>
            <TableHead columns={["Since", "Patient", "Kind", "Severity", "Message"]} actions />
            <tbody>
              {list.data.alerts.map((a) => (
                <tr key={a.id}>
                  <td>{new Date(a.started_at).toLocaleString()}</td>
                  <td>
                    <code>{a.patient_id}</code>
                  </td>
                  <td>{KIND_LABELS[a.kind]}</td>
                  <td>{a.severity}</td>
                  <td>{a.message}</td>
                  <td>
                    {can("alerts:manage") && a.state === "active" && (
                      <button type="button" onClick={() => move(a, "acknowledge")} aria-label={`Acknowledge ${a.message}`}>
                        Acknowledge
                      </button>
                    )}
                    {can("alerts:manage") && a.state !== "resolved" && (
                      <button type="button" onClick={() => move(a, "resolve")} aria-label={`Resolve ${a.message}`}>
                        Resolve
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager label="Alerts" offset={offset} total={list.data.total_count} onChange={setOffset} />
        </>
      )}
    </section>
  );
}
