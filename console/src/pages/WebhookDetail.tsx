// One webhook endpoint: its events and state, the destination queue that delivers it (status and
// figures, as the Destinations page shows them), the signing secret's rotation (the new one shown
// once), disable/enable, and its deliveries newest first (state, attempts, last answer), each
// opening the message page with its payload and every attempt. Fetched again every few seconds.
import { useState } from "react";
import { Link, useLocation } from "wouter";
import { ErrorMessage, Loading } from "../components/States";
import { failureWords } from "../destinations/failure-words";
import { when } from "../destinations/format";
import { StatusBadge } from "../destinations/StatusBadge";
import { type Destination, MESSAGE_STATES } from "../destinations/types";
import { api, withQuery } from "../lib/api";
import { useSession } from "../lib/session";
import { useAction } from "../lib/use-action";
import { useApi } from "../lib/use-api";
import { usePolling } from "../lib/use-polling";
import { endpointState, type WebhookDelivery, type WebhookEndpoint, type WebhookEndpointCreated } from "../outbound/webhooks";
import { DESTINATIONS_POLL_MS } from "./Destinations";
import { SecretOnce } from "./Webhooks";

const PAGE = 20;

export function WebhookDetail({ id }: { id: string }) {
  const { can } = useSession();
  const [, navigate] = useLocation();
  const path = `/api/v1/webhook-endpoints/${encodeURIComponent(id)}`;
  const endpoint = useApi<WebhookEndpoint>(path);
  const w = endpoint.data;
  const dest = useApi<Destination>(w?.destination_id && can("messages:read") ? `/api/v1/destinations/${encodeURIComponent(w.destination_id)}` : null);
  const [state, setState] = useState("");
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const deliveries = useApi<{ deliveries: WebhookDelivery[]; next_cursor: string | null }>(w ? withQuery(`${path}/deliveries`, { limit: PAGE, state, cursor }) : null);
  const [rotated, setRotated] = useState<string>();
  const act = useAction();
  const { loading, reload } = deliveries;
  usePolling(!loading && !endpoint.error, DESTINATIONS_POLL_MS, reload, endpoint.reload, dest.reload);

  if (endpoint.error && !w) return <ErrorMessage error={endpoint.error} />;
  if (!w) return <Loading what="the webhook endpoint" />;
  const words = endpointState(w);

  function setEnabled(enabled: boolean) {
    void act.run(async () => {
      await api(path, { method: "PATCH", body: { enabled } });
      endpoint.reload();
    });
  }

  function rotate() {
    if (!window.confirm("Make a new signing secret? The current one keeps signing for 24 hours beside it.")) return;
    void act.run(async () => {
      setRotated((await api<WebhookEndpointCreated>(`${path}/rotate-secret`, { method: "POST", body: {} })).secret);
      endpoint.reload();
    });
  }

  function remove() {
    if (!window.confirm(`Delete the webhook endpoint ${w?.url}? Its undelivered messages go with it.`)) return;
    void act.run(async () => {
      await api(path, { method: "DELETE" });
      navigate("/webhooks");
    });
  }

  const list = deliveries.data?.deliveries ?? [];
  return (
    <>
      <p>
        <Link href="/webhooks">← Event webhooks</Link>
      </p>
      <h1 className="wrap">
        {w.url} <span className={`badge ${words.badge}`}>{w.enabled ? "enabled" : "disabled"}</span>
      </h1>
      {w.description && <p>{w.description}</p>}
      {w.disabled_reason && (
        <div className="error" role="alert">
          <strong>{words.words}</strong>
          <p>Since {when(w.disabled_at)}. Enable it again once the receiver is fixed.</p>
        </div>
      )}
      <p className="destination-actions">
        <button type="button" disabled={act.busy} onClick={() => setEnabled(!w.enabled)}>
          {w.enabled ? "Disable" : "Enable"}
        </button>{" "}
        <button type="button" disabled={act.busy} onClick={rotate}>
          Rotate the signing secret
        </button>{" "}
        <button type="button" disabled={act.busy} onClick={remove}>
          Delete
        </button>
      </p>
      {rotated && <SecretOnce what="A new secret signs from now on (beside the one before, until its overlap ends)." secret={rotated} onDone={() => setRotated(undefined)} />}
      {act.failure && <ErrorMessage error={act.failure} />}
      <dl className="facts">
        <dt>Events</dt>
        <dd className="wrap">{w.event_types.join(", ")}</dd>
        <dt>Secret made</dt>
        <dd>
          {when(w.secret_created_at)}
          {w.previous_secret_expires_at && <span className="muted"> (the one before signs too until {when(w.previous_secret_expires_at)})</span>}
        </dd>
        {w.failing_since && (
          <>
            <dt>Failing since</dt>
            <dd>{when(w.failing_since)}</dd>
          </>
        )}
        <dt>Queue</dt>
        <dd>
          {dest.data ? (
            <>
              <StatusBadge destination={dest.data} /> <Link href={`/destinations/${dest.data.id}`}>{dest.data.name}</Link>: {dest.data.figures.depth} waiting, {dest.data.figures.dead} dead
            </>
          ) : (
            (w.destination_id ?? "—")
          )}
        </dd>
        <dt>Created</dt>
        <dd>{when(w.created_at)}</dd>
      </dl>

      <section aria-labelledby="deliveries-heading">
        <h2 id="deliveries-heading">Deliveries</h2>
        <form className="inline-form" aria-label="Filter deliveries" onSubmit={(e) => e.preventDefault()}>
          <label>
            State
            <select
              name="state"
              value={state}
              onChange={(e) => {
                setState(e.target.value);
                setCursors([undefined]);
              }}
            >
              <option value="">Any state</option>
              {MESSAGE_STATES.map((s) => (
                <option key={s} value={s}>
                  {s.replace("_", " ")}
                </option>
              ))}
            </select>
          </label>
        </form>
        {deliveries.error && <ErrorMessage error={deliveries.error} />}
        {!deliveries.data && !deliveries.error && <Loading what="deliveries" />}
        {deliveries.data && list.length === 0 && <p className="muted">{state ? `No ${state.replace("_", " ")} deliveries.` : "Nothing delivered yet: deliveries appear when one of its events happens."}</p>}
        {list.length > 0 && (
          <table className="deliveries">
            <caption className="visually-hidden">Deliveries</caption>
            <thead>
              <tr>
                <th scope="col">Enqueued</th>
                <th scope="col">Event</th>
                <th scope="col">State</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last answer</th>
              </tr>
            </thead>
            <tbody>
              {list.map((d) => (
                <tr key={d.id} data-delivery-id={d.id} data-delivery-state={d.state}>
                  <td>{w.destination_id && can("messages:read") ? <Link href={`/destinations/${w.destination_id}/messages/${encodeURIComponent(d.id)}`}>{when(d.enqueued_at)}</Link> : when(d.enqueued_at)}</td>
                  <td className="wrap">
                    {d.event_type ?? "—"}
                    {d.event_id && <div className="muted">{d.event_id}</div>}
                  </td>
                  <td>
                    <span className={`badge ${d.state}`}>{d.state.replace("_", " ")}</span>
                    {d.next_attempt_at && d.state === "queued" && <div className="muted">next attempt {when(d.next_attempt_at)}</div>}
                  </td>
                  <td>{d.attempts}</td>
                  <td className="wrap">
                    {d.last_status !== null && `HTTP ${d.last_status}`}
                    {d.last_failure && (
                      <div className="failure-line" title={failureWords(d.last_failure.class)}>
                        <code>{d.last_failure.class}</code> {d.last_failure.message}
                      </div>
                    )}
                    {d.last_status === null && !d.last_failure && "—"}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {(cursors.length > 1 || deliveries.data?.next_cursor) && (
          <nav className="pager" aria-label="Deliveries pages">
            <button type="button" disabled={cursors.length <= 1} onClick={() => setCursors((c) => c.slice(0, -1))}>
              Newer
            </button>
            <button type="button" disabled={!deliveries.data?.next_cursor} onClick={() => deliveries.data?.next_cursor && setCursors((c) => [...c, deliveries.data?.next_cursor ?? undefined])}>
              Older
            </button>
          </nav>
        )}
      </section>
    </>
  );
}
