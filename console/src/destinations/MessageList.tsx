// A destination's messages, newest first: filtered by state and key, paged with the API's
// next_cursor (older) and the cursors already seen (newer), with a selection for retry now,
// skip and reprocess.
import { useEffect, useState } from "react";
import { Link } from "wouter";
import { EmptyState, ErrorMessage, Loading } from "../components/States";
import { api, withQuery } from "../lib/api";
import { useSession } from "../lib/session";
import { useAction } from "../lib/use-action";
import { useApi } from "../lib/use-api";
import { when } from "./format";
import { MESSAGE_STATES, type QueuedMessage } from "./types";

const PAGE = 20;

export function resultText(m: Pick<QueuedMessage, "last_result">): string {
  const r = m.last_result;
  if (!r) return "—";
  const code = [r.status !== undefined ? `HTTP ${r.status}` : "", r.ack_code ? `ACK ${r.ack_code}` : ""].filter(Boolean).join(", ");
  if (r.ok) return code ? `delivered (${code})` : "delivered";
  return [r.failure?.class, code].filter(Boolean).join(", ") || "failed";
}

export function MessageList({ destinationId, paused, pollMs, onChanged }: { destinationId: string; paused: boolean; pollMs: number; onChanged(): void }) {
  const { can } = useSession();
  const [state, setState] = useState("");
  const [key, setKey] = useState("");
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const base = `/api/v1/destinations/${encodeURIComponent(destinationId)}`;
  const list = useApi<{ messages: QueuedMessage[]; next_cursor: string | null }>(withQuery(`${base}/messages`, { limit: PAGE, state, key: key.trim(), cursor }));
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const act = useAction();
  const [done, setDone] = useState<string>();
  const { loading, reload } = list;

  useEffect(() => {
    if (loading) return;
    const timer = setTimeout(reload, pollMs);
    return () => clearTimeout(timer);
  }, [loading, reload, pollMs]);

  const filter = (set: (v: string) => void) => (v: string) => {
    set(v);
    setCursors([undefined]);
    setSelected(new Set());
  };
  const toggle = (id: string) =>
    setSelected((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  function onSelected(what: string, action: (ids: string[]) => Promise<number>, confirm?: string) {
    const ids = [...selected];
    if (ids.length === 0) return;
    if (confirm && !window.confirm(confirm.replace("{n}", String(ids.length)))) return;
    setDone(undefined);
    void act.run(async () => {
      const affected = await action(ids);
      setDone(`${what}: ${affected} of ${ids.length} selected messages`);
      setSelected(new Set());
      reload();
      onChanged();
    });
  }
  const post = async (path: string, body?: unknown) => (await api<{ affected: number }>(`${base}${path}`, { method: "POST", ...(body ? { body } : {}) })).affected;

  const messages = list.data?.messages ?? [];
  const operate = can("messages:manage");
  return (
    <section aria-labelledby="messages-heading">
      <h2 id="messages-heading">Messages</h2>
      <form className="inline-form" aria-label="Filter messages" onSubmit={(e) => e.preventDefault()}>
        <label>
          State
          <select name="state" value={state} onChange={(e) => filter(setState)(e.target.value)}>
            <option value="">Any state</option>
            {MESSAGE_STATES.map((s) => (
              <option key={s} value={s}>
                {s.replace("_", " ")}
              </option>
            ))}
          </select>
        </label>
        <label>
          Key
          <input name="key" value={key} onChange={(e) => filter(setKey)(e.target.value)} placeholder="e.g. a patient's identifier" />
        </label>
      </form>
      {operate && (
        <fieldset className="inline-form selection">
          <legend className="visually-hidden">Selected messages</legend>
          <span>{selected.size} selected</span>
          <button type="button" disabled={act.busy || selected.size === 0} onClick={() => onSelected("Retried now", (ids) => post("/messages/retry", { message_ids: ids }))}>
            Retry selected now
          </button>
          <button type="button" disabled={act.busy || selected.size === 0} onClick={() => onSelected("Reprocessed", (ids) => post("/messages/reprocess", { message_ids: ids }), "Queue the {n} selected messages again (with their delivery ids)?")}>
            Reprocess selected
          </button>
          <button
            type="button"
            disabled={act.busy || selected.size === 0}
            onClick={() =>
              onSelected(
                "Skipped",
                async (ids) => {
                  let n = 0;
                  for (const id of ids) n += await post(`/messages/${encodeURIComponent(id)}/skip`);
                  return n;
                },
                "Set the {n} selected messages aside unsent? They will not be delivered.",
              )
            }
          >
            Skip selected
          </button>
        </fieldset>
      )}
      {done && (
        <p role="status" className="notice">
          {done}
        </p>
      )}
      {act.failure && <ErrorMessage error={act.failure} />}
      {list.error && <ErrorMessage error={list.error} />}
      {!list.data && !list.error && <Loading what="messages" />}
      {list.data && messages.length === 0 && (
        <EmptyState title={state || key ? "No messages match these filters" : "No messages"}>
          <p>{state || key ? "Widen the filters above." : "Messages arrive from pipelines (output.enqueue, the queued mode of hl7.send) or POST /api/v1/destinations/{id}/messages. Delivered ones are kept 7 days."}</p>
        </EmptyState>
      )}
      {messages.length > 0 && (
        <table className="destination-messages">
          <caption className="visually-hidden">Messages, newest first</caption>
          <thead>
            <tr>
              {operate && (
                <th scope="col">
                  <span className="visually-hidden">Select</span>
                </th>
              )}
              <th scope="col">Enqueued</th>
              <th scope="col">Delivery id</th>
              <th scope="col">Key</th>
              <th scope="col">State</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last result</th>
              <th scope="col">Next attempt</th>
            </tr>
          </thead>
          <tbody>
            {messages.map((m) => (
              <tr key={m.id} data-message-id={m.id} data-message-state={m.state}>
                {operate && (
                  <td>
                    <input type="checkbox" aria-label={`Select ${m.id}`} checked={selected.has(m.id)} onChange={() => toggle(m.id)} />
                  </td>
                )}
                <td>
                  <Link href={`/destinations/${destinationId}/messages/${encodeURIComponent(m.id)}`}>{when(m.enqueued_at)}</Link>
                </td>
                <td className="wrap">
                  <code>{m.id}</code>
                  {m.label && <div className="muted">{m.label}</div>}
                </td>
                <td className="wrap">{m.key || "—"}</td>
                <td>
                  <span className={`badge ${m.state}`}>{m.state.replace("_", " ")}</span>
                </td>
                <td>{m.attempts}</td>
                <td>{resultText(m)}</td>
                <td>{m.state !== "queued" ? "—" : paused ? "when resumed" : when(m.next_attempt_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {(cursors.length > 1 || list.data?.next_cursor) && (
        <nav className="pager" aria-label="Messages pages">
          <button type="button" disabled={cursors.length === 1} onClick={() => setCursors((c) => c.slice(0, -1))}>
            Newer
          </button>
          <button type="button" disabled={!list.data?.next_cursor} onClick={() => list.data?.next_cursor && setCursors((c) => [...c, list.data?.next_cursor ?? undefined])}>
            Older
          </button>
        </nav>
      )}
    </section>
  );
}
