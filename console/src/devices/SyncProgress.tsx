// A sync's live progress: polls the sync log until the sync ends, one row per data type.
import { useEffect, useState } from "react";
import { ErrorMessage } from "../components/States";
import { ApiFailure, api } from "../lib/api";
import type { SyncLog } from "./types";
import { TableHead } from "../components/TableHead";

const POLL_MS = 750;
const done = (log: SyncLog) => !["queued", "running"].includes(log.state);

export function SyncProgress({ syncId, onFinished }: { syncId: string; onFinished(): void }) {
  const [log, setLog] = useState<SyncLog>();
  const [failure, setFailure] = useState<ApiFailure>();

  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const next = await api<SyncLog>(`/api/v1/sync-logs/${encodeURIComponent(syncId)}`);
        if (!live) return;
        setLog(next);
        if (done(next)) onFinished();
        else timer = setTimeout(() => void poll(), POLL_MS);
      } catch (err) {
        if (live) setFailure(err instanceof ApiFailure ? err : new ApiFailure(0, "CLIENT", String(err)));
      }
    };
    void poll();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [syncId, onFinished]);

  if (failure) return <ErrorMessage error={failure} />;
  if (!log) return <p role="status">Starting the sync…</p>;
  const totals = log.data_types.reduce((t, d) => ({ received: t.received + d.readings_received, created: t.created + d.observations_created }), { received: 0, created: 0 });
  const finished = log.data_types.filter((d) => d.state === "completed" || d.state === "failed").length;
  return (
    <section className="sync-progress" aria-label="Sync progress">
      <p role="status">
        Sync <span className={`badge ${log.state}`}>{log.state.replace("_", " ")}</span> · {finished} of {log.data_types.length} data types done · {totals.received} readings received, {totals.created} observations created
      </p>
      <progress max={Math.max(1, log.data_types.length)} value={finished} aria-label="Data types synced" />
      <table>
        <caption className="visually-hidden">Sync progress per data type</caption>
        <TableHead columns={["Data type", "State", "Pages", "Received", "Created", "Duplicates", "Errors"]} />
        <tbody>
          {log.data_types.map((d) => (
            <tr key={d.data_type}>
              <td>{d.data_type}</td>
              <td>{d.state}</td>
              <td>{d.pages_fetched}</td>
              <td>{d.readings_received}</td>
              <td>{d.observations_created}</td>
              <td>{d.duplicates_skipped}</td>
              <td>{d.errors.map((e) => e.reason).join("; ")}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
