// One FHIR Subscription: what it listens to and where it delivers, its status and last error (from
// the resource and $status), the destination queue its notifications go through (status and
// figures, as the Destinations page shows them, with a link to its message browser), and its
// numbered events from $events, newest first, each linked to its focus and its delivery.
import { useState } from "react";
import { Link } from "wouter";
import { ErrorMessage, Loading } from "../components/States";
import { duration, when } from "../destinations/format";
import { StatusBadge } from "../destinations/StatusBadge";
import { useSession } from "../lib/session";
import { useApi } from "../lib/use-api";
import { usePolling } from "../lib/use-polling";
import { channelType, filters, headerNames, heartbeatSeconds, type NotificationBundle, payloadContent, readStatus, type Subscription, topicName } from "../outbound/subscription";
import { useManagedDestinations } from "../outbound/use-managed";
import { fhirBase } from "../patients/fhir";
import { DESTINATIONS_POLL_MS } from "./Destinations";

const EVENTS_PAGE = 20;

export function SubscriptionDetail({ id }: { id: string }) {
  const { session } = useSession();
  const base = `${fhirBase(session?.organization.id ?? "")}/Subscription/${encodeURIComponent(id)}`;
  const sub = useApi<Subscription>(base);
  const status = useApi<NotificationBundle>(sub.data ? `${base}/$status` : null);
  const managed = useManagedDestinations("subscription");
  /** The highest event number shown; undefined: the latest. */
  const [until, setUntil] = useState<number>();
  const current = status.data ? readStatus(status.data) : undefined;
  const total = current?.eventsSinceStart ?? 0;
  const last = Math.min(until ?? total, total);
  const first = Math.max(1, last - EVENTS_PAGE + 1);
  const events = useApi<NotificationBundle>(last > 0 ? `${base}/$events?content=id-only&eventsSinceNumber=${first}&eventsUntilNumber=${last}` : null);
  const { loading, reload } = status;
  usePolling(!loading && !sub.error, DESTINATIONS_POLL_MS, sub.reload, reload, managed.reload);

  if (sub.error && !sub.data) return <ErrorMessage error={sub.error} />;
  const s = sub.data;
  if (!s) return <Loading what="the subscription" />;
  const dest = managed.byOwner.get(s.id);
  const shown = events.data ? readStatus(events.data).events.slice().reverse() : [];
  const topic = topicName(s);
  return (
    <>
      <p>
        <Link href="/subscriptions">← Subscriptions</Link>
      </p>
      <h1>
        {s.reason || `Subscription ${s.id}`} <span className={`badge ${s.status ?? "requested"}`}>{s.status ?? "requested"}</span>
      </h1>
      {(current?.error ?? s.error) && (
        <div className="error" role="alert">
          <strong>Last error</strong>
          <p className="wrap">{current?.error ?? s.error}</p>
        </div>
      )}
      <dl className="facts subscription-facts">
        <dt>Id</dt>
        <dd>
          <Link href={`/fhir-browser/Subscription/${encodeURIComponent(s.id)}`}>{s.id}</Link>
        </dd>
        <dt>{topic ? "Topic" : "Criteria"}</dt>
        <dd className="wrap">
          <code>{s.criteria}</code>
        </dd>
        {filters(s).length > 0 && (
          <>
            <dt>Filters</dt>
            <dd className="wrap">
              {filters(s).map((f) => (
                <div key={f}>
                  <code>{f}</code>
                </div>
              ))}
            </dd>
          </>
        )}
        <dt>Channel</dt>
        <dd>{channelType(s)}</dd>
        <dt>Endpoint</dt>
        <dd className="wrap">{s.channel?.endpoint ? <code>{s.channel.endpoint}</code> : "—"}</dd>
        <dt>Payload</dt>
        <dd>
          {payloadContent(s)}
          {s.channel?.payload && <span className="muted"> ({s.channel.payload})</span>}
        </dd>
        {headerNames(s).length > 0 && (
          <>
            <dt>Headers</dt>
            <dd>{headerNames(s).join(", ")} (values not shown)</dd>
          </>
        )}
        {heartbeatSeconds(s) !== undefined && (
          <>
            <dt>Heartbeat</dt>
            <dd>every {duration((heartbeatSeconds(s) ?? 0) * 1000)}</dd>
          </>
        )}
        {s.end && (
          <>
            <dt>Ends</dt>
            <dd>{when(s.end)}</dd>
          </>
        )}
        <dt>Events since it started</dt>
        <dd data-figure="events">{current ? total : "…"}</dd>
        <dt>Last changed</dt>
        <dd>{when(s.meta?.lastUpdated)}</dd>
      </dl>

      <h2>Delivery</h2>
      {status.error && <ErrorMessage error={status.error} />}
      {dest ? (
        <dl className="facts">
          <dt>Queue</dt>
          <dd>
            <StatusBadge destination={dest} /> <Link href={`/destinations/${dest.id}`}>{dest.name}</Link>
          </dd>
          <dt>Waiting</dt>
          <dd data-figure="depth">
            {dest.figures.depth} ({dest.figures.in_flight} in flight), {dest.figures.dead} dead
          </dd>
          <dt>Last delivered</dt>
          <dd>{when(dest.figures.last_delivered_at)}</dd>
        </dl>
      ) : (
        <p className="muted">{managed.loading ? "Loading its queue…" : "Its destination queue is not among the organization's first 100 destinations; the Destinations page lists every queue."}</p>
      )}

      <h2>Events</h2>
      {events.error && <ErrorMessage error={events.error} />}
      {current && total === 0 && <p className="muted">No change has matched this subscription yet.</p>}
      {shown.length > 0 && (
        <>
          <table className="subscription-events">
            <caption className="visually-hidden">Events</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Time</th>
                <th scope="col">Change</th>
                <th scope="col">Resource</th>
                <th scope="col">Notification</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((e) => (
                <tr key={e.number} data-event-number={e.number}>
                  <td>{e.number}</td>
                  <td>{when(e.timestamp)}</td>
                  <td>{e.action ?? "—"}</td>
                  <td>{e.focus ? <Link href={`/fhir-browser/${e.focus}`}>{e.focus}</Link> : "—"}</td>
                  <td>{dest ? <Link href={`/destinations/${dest.id}/messages/${encodeURIComponent(`${s.id}:${e.number}`)}`}>delivery {`${s.id}:${e.number}`}</Link> : "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <nav className="pager" aria-label="Events pages">
            <button type="button" disabled={last >= total} onClick={() => setUntil(last + EVENTS_PAGE >= total ? undefined : last + EVENTS_PAGE)}>
              Newer
            </button>
            <span>
              {first}–{last} of {total}
            </span>
            <button type="button" disabled={first <= 1} onClick={() => setUntil(first - 1)}>
              Older
            </button>
          </nav>
        </>
      )}
    </>
  );
}
