// The operator's actions on a whole destination: pause and resume, retry every waiting message
// now, reprocess every dead one, purge the messages in a state (asked to confirm), and, for
// administrators, edit and delete. Each refusal is shown in the API's words.
import { useState } from "react";
import { Link, useLocation } from "wouter";
import { ErrorMessage } from "../components/States";
import { api } from "../lib/api";
import { useSession } from "../lib/session";
import { useAction } from "../lib/use-action";
import { PURGEABLE_STATES } from "./types";
import type { Destination } from "./types";

export function DestinationActions({ destination: d, onDone }: { destination: Destination; onDone(): void }) {
  const { can } = useSession();
  const [, navigate] = useLocation();
  const act = useAction();
  const [done, setDone] = useState<string>();
  const [purgeState, setPurgeState] = useState<string>("dead");
  const base = `/api/v1/destinations/${encodeURIComponent(d.id)}`;

  function run(what: string, action: () => Promise<string>) {
    setDone(undefined);
    void act.run(async () => {
      setDone(`${what}: ${await action()}`);
      onDone();
    });
  }
  const state = async (verb: "pause" | "resume", outcome: string) => {
    await api<Destination>(`${base}/${verb}`, { method: "POST" });
    return outcome;
  };
  const touched = async (path: string, body: unknown) => `${(await api<{ affected: number }>(`${base}${path}`, { method: "POST", body })).affected} messages`;

  const operate = can("messages:manage");
  const manage = can("connectors:manage") && !d.owner;
  if (!operate && !manage) return null;
  return (
    <section aria-label="Destination actions" className="destination-actions">
      {operate && (
        <div className="inline-form">
          {d.state === "active" ? (
            <button type="button" disabled={act.busy} onClick={() => run("Paused", () => state("pause", "messages wait until resumed"))}>
              Pause
            </button>
          ) : (
            <button type="button" disabled={act.busy} onClick={() => run("Resumed", () => state("resume", "delivering"))}>
              Resume
            </button>
          )}
          <button type="button" disabled={act.busy} onClick={() => run("Retry now", () => touched("/messages/retry", {}))}>
            Retry all now
          </button>
          <button
            type="button"
            disabled={act.busy || d.figures.dead === 0}
            onClick={() => window.confirm(`Queue all ${d.figures.dead} dead messages of "${d.name}" again (with their delivery ids)?`) && run("Reprocessed", () => touched("/messages/reprocess", {}))}
          >
            Reprocess all dead
          </button>
          <label className="inline">
            Purge state
            <select name="purge_state" value={purgeState} onChange={(e) => setPurgeState(e.target.value)}>
              {PURGEABLE_STATES.map((s) => (
                <option key={s}>{s}</option>
              ))}
            </select>
          </label>
          <button type="button" disabled={act.busy} onClick={() => window.confirm(`Delete every ${purgeState} message of "${d.name}"? This cannot be undone.`) && run("Purged", () => touched("/messages/purge", { states: [purgeState] }))}>
            Purge
          </button>
        </div>
      )}
      {manage && (
        <p>
          <Link className="button-link" href={`/destinations/${d.id}/edit`}>
            Edit
          </Link>{" "}
          <button
            type="button"
            disabled={act.busy}
            onClick={() =>
              window.confirm(`Delete the destination "${d.name}"?`) &&
              void act.run(async () => {
                await api(base, { method: "DELETE" });
                navigate("/destinations");
              })
            }
          >
            Delete destination
          </button>
        </p>
      )}
      {done && (
        <p role="status" className="notice">
          {done}
        </p>
      )}
      {act.failure && <ErrorMessage error={act.failure} />}
    </section>
  );
}
