// Inbound messages (HL7 v2 and every other inbound protocol), newest first, filtered by sender,
// message type and status, a page at a time.
import { useState } from "react";
import { Link } from "wouter";
import { Pager, PAGE_SIZE } from "../components/Pager";
import { EmptyState, ErrorMessage, Loading } from "../components/States";
import { withQuery } from "../lib/api";
import { useApi } from "../lib/use-api";
import { MESSAGE_STATUSES, type MessageSummary } from "../messages/types";

export function Messages() {
  const [offset, setOffset] = useState(0);
  const [sender, setSender] = useState("");
  const [type, setType] = useState("");
  const [status, setStatus] = useState("");
  const { data, error, loading } = useApi<{ messages: MessageSummary[]; total_count: number }>(
    withQuery("/api/hl7/messages", { limit: PAGE_SIZE, offset, sender: sender.trim(), message_type: type.trim(), status }),
  );
  const filtered = sender || type || status;
  const filter = (set: (v: string) => void) => (v: string) => {
    set(v);
    setOffset(0);
  };
  return (
    <>
      <h1>Messages</h1>
      <form className="inline-form" aria-label="Filter messages" onSubmit={(e) => e.preventDefault()}>
        <label>
          Sender
          <input name="sender" value={sender} onChange={(e) => filter(setSender)(e.target.value)} placeholder="APP|FACILITY" />
        </label>
        <label>
          Message type
          <input name="message_type" value={type} onChange={(e) => filter(setType)(e.target.value)} placeholder="ADT" />
        </label>
        <label>
          Status
          <select name="status" value={status} onChange={(e) => filter(setStatus)(e.target.value)}>
            <option value="">Any status</option>
            {MESSAGE_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
      </form>
      {error && <ErrorMessage error={error} />}
      {loading && !data && <Loading what="messages" />}
      {data && data.total_count === 0 && (
        <EmptyState title={filtered ? "No messages match these filters" : "No messages received yet"}>
          {filtered ? (
            <p>Widen the filters above. The sender is MSH-3|MSH-4 as written, e.g. ADTSYS|GENHOSP; the type is MSH-9.1, e.g. ADT.</p>
          ) : (
            <p>Messages arrive from the on-premises bridge (MLLP) or through POST /api/v1/hl7/messages. Deploy a pipeline with an HL7 trigger to turn them into FHIR resources.</p>
          )}
        </EmptyState>
      )}
      {data && data.total_count > 0 && (
        <>
          <table>
            <caption className="visually-hidden">Messages</caption>
            <thead>
              <tr>
                <th scope="col">Received</th>
                <th scope="col">Sender</th>
                <th scope="col">Type</th>
                <th scope="col">Control id</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
              </tr>
            </thead>
            <tbody>
              {data.messages.map((m) => (
                <tr key={m.id} data-message-id={m.id}>
                  <td>
                    <Link href={`/messages/${m.id}`}>{new Date(m.received_at).toLocaleString()}</Link>
                  </td>
                  <td>{m.sender ?? "—"}</td>
                  <td>
                    {m.message_type ? `${m.message_type}${m.trigger_event ? `^${m.trigger_event}` : ""}` : "—"} <span className="muted">{m.protocol}</span>
                  </td>
                  <td>{m.control_id ?? "—"}</td>
                  <td>
                    <span className={`badge ${m.status}`}>{m.status}</span>
                  </td>
                  <td>{m.attempts}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager label="Messages" offset={offset} total={data.total_count} onChange={setOffset} />
        </>
      )}
    </>
  );
}
