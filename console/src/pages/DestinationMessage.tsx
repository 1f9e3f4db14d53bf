// One queued message: what it is (delivery id, key, state, source), the payload sent (HL7 v2 one
// segment per line, its fields labelled on request), each attempt with its time, duration,
// status or ACK code, the answer and the failure, and its own retry, skip and reprocess.
import { useEffect, useState } from "react";
import { Link } from "wouter";
import { ErrorMessage, Loading } from "../components/States";
import { failureWords } from "../destinations/failure-words";
import { duration, payloadLines, when } from "../destinations/format";
import { resultText } from "../destinations/MessageList";
import type { DeliveryAttempt, QueuedMessage } from "../destinations/types";
import { api } from "../lib/api";
import { useSession } from "../lib/session";
import { useAction } from "../lib/use-action";
import { useApi } from "../lib/use-api";
import { Hl7View } from "../messages/Hl7View";

const POLL_MS = 1500;

export function DestinationMessage({ destinationId, messageId }: { destinationId: string; messageId: string }) {
  const { can } = useSession();
  const base = `/api/v1/destinations/${encodeURIComponent(destinationId)}/messages`;
  const found = useApi<{ message: QueuedMessage; attempts: DeliveryAttempt[] }>(`${base}/${encodeURIComponent(messageId)}`);
  const act = useAction();
  const [done, setDone] = useState<string>();
  const { data, loading, reload } = found;
  const m = data?.message;

  // A message still waiting or in flight is fetched again until it settles.
  useEffect(() => {
    if (loading || !m || (m.state !== "queued" && m.state !== "in_flight")) return;
    const timer = setTimeout(reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [loading, m, reload]);

  if (found.error && !data) return <ErrorMessage error={found.error} />;
  if (!data || !m) return <Loading what="the message" />;

  function act1(what: string, path: string, body?: unknown, confirm?: string) {
    if (confirm && !window.confirm(confirm)) return;
    setDone(undefined);
    void act.run(async () => {
      const r = await api<{ affected: number }>(`${base}${path}`, { method: "POST", ...(body ? { body } : {}) });
      setDone(r.affected > 0 ? `${what}.` : `${what}: the message was not in a state for it.`);
      reload();
    });
  }
  const payload = payloadLines(m.body);
  return (
    <>
      <p>
        <Link href={`/destinations/${destinationId}`}>← Destination</Link>
      </p>
      <h1>
        Message <code className="wrap">{m.id}</code>{" "}
        <span className={`badge ${m.state}`} data-message-state={m.state}>
          {m.state.replace("_", " ")}
        </span>
      </h1>
      <dl className="facts">
        <dt>Delivery id</dt>
        <dd className="wrap">
          <code>{m.id}</code> <span className="muted">(the same on every attempt: x-delivery-id)</span>
        </dd>
        <dt>Key</dt>
        <dd className="wrap">{m.key || "—"}</dd>
        {m.label && (
          <>
            <dt>Label</dt>
            <dd>{m.label}</dd>
          </>
        )}
        <dt>Source</dt>
        <dd>
          {m.source ? `${m.source.kind} ${m.source.id}` : "—"}
          {m.source?.execution_id && (
            <>
              {" "}
              (<Link href={`/executions/${m.source.execution_id}`}>execution</Link>
              {m.source.node_id && `, node ${m.source.node_id}`})
            </>
          )}
        </dd>
        <dt>Enqueued</dt>
        <dd>{when(m.enqueued_at)}</dd>
        <dt>Attempts</dt>
        <dd>
          {m.attempts}
          {m.first_attempt_at && ` (first ${when(m.first_attempt_at)})`}
        </dd>
        <dt>{m.state === "delivered" ? "Delivered" : "Next attempt"}</dt>
        <dd>{m.state === "delivered" ? when(m.delivered_at) : m.state === "queued" ? when(m.next_attempt_at) : "—"}</dd>
        <dt>Last result</dt>
        <dd>{resultText(m)}</dd>
        {(m.method || m.path || m.content_type) && (
          <>
            <dt>Request</dt>
            <dd className="wrap">{[m.method, m.path, m.content_type].filter(Boolean).join(" ")}</dd>
          </>
        )}
      </dl>
      {can("messages:manage") && (
        <p className="inline-form">
          <button type="button" disabled={act.busy || m.state !== "queued"} onClick={() => act1("Due now", "/retry", { message_ids: [m.id] })}>
            Retry now
          </button>
          <button type="button" disabled={act.busy || (m.state !== "queued" && m.state !== "dead")} onClick={() => act1("Skipped", `/${encodeURIComponent(m.id)}/skip`, undefined, "Set this message aside unsent? It will not be delivered.")}>
            Skip
          </button>
          <button type="button" disabled={act.busy || m.state === "queued" || m.state === "in_flight"} onClick={() => act1("Queued again", "/reprocess", { message_ids: [m.id] }, "Queue this message again with its delivery id?")}>
            Reprocess
          </button>
        </p>
      )}
      {done && (
        <p role="status" className="notice">
          {done}
        </p>
      )}
      {act.failure && <ErrorMessage error={act.failure} />}
      <h2>Payload sent</h2>
      <pre className="payload" data-payload={payload.hl7 ? "hl7" : "text"}>
        {payload.text}
      </pre>
      {payload.hl7 && (
        <details>
          <summary>Fields, labelled</summary>
          <Hl7View raw={m.body} />
        </details>
      )}
      <h2>Attempts</h2>
      {data.attempts.length === 0 ? (
        <p className="muted">Not attempted yet.</p>
      ) : (
        <ol className="attempts">
          {data.attempts.map((a) => (
            <li key={a.number} className="attempt" data-attempt={a.number} data-attempt-ok={a.result.ok ? "true" : "false"}>
              <h3>
                Attempt {a.number}: {a.result.ok ? "delivered" : (a.result.failure?.class ?? "failed")}
              </h3>
              <dl className="facts">
                <dt>Time</dt>
                <dd>{when(a.started_at)}</dd>
                <dt>Duration</dt>
                <dd>{duration(a.duration_ms)}</dd>
                <dt>Status</dt>
                <dd data-attempt-status>{[a.result.status !== undefined ? `HTTP ${a.result.status}` : "", a.result.ack_code ? `ACK ${a.result.ack_code}` : ""].filter(Boolean).join(", ") || "no answer"}</dd>
                {a.result.failure && (
                  <>
                    <dt>Failure</dt>
                    <dd>
                      <code>{a.result.failure.class}</code>: {a.result.failure.message} <span className="muted">({failureWords(a.result.failure.class)})</span>
                    </dd>
                  </>
                )}
              </dl>
              {a.result.response !== undefined && a.result.response !== "" && (
                <>
                  <h4>Answer received</h4>
                  <pre className="payload" data-answer>
                    {payloadLines(a.result.response).text}
                  </pre>
                </>
              )}
            </li>
          ))}
        </ol>
      )}
    </>
  );
}
