// The channels dashboard (Mirth's): per inbound route (protocol and sender) the last 24 hours'
// received, filtered, queued, sent and errored messages with an hourly chart, from the service's
// aggregate (GET /api/hl7/messages/stats); per destination its queue's figures as the
// destinations list reports them (queued, in flight, dead, delivered and failed attempts in the
// last hour). Refreshed every 10 s.
import { Link } from "wouter";
import { EmptyState, ErrorMessage, Loading } from "../components/States";
import { TableHead } from "../components/TableHead";
import { withQuery } from "../lib/api";
import { useApi } from "../lib/use-api";
import { usePolling } from "../lib/use-polling";

interface Counts {
  received: number;
  filtered: number;
  queued: number;
  sent: number;
  errored: number;
}
interface Route extends Counts {
  protocol: string;
  sender: string | null;
  hours: ({ start: string } & Counts)[];
}
interface Destination {
  id: string;
  name: string;
  status: string;
  figures: { depth: number; in_flight: number; dead: number; delivered: { m60: number }; failed_attempts: { m60: number } };
}

const FIGURES: (keyof Counts)[] = ["received", "filtered", "queued", "sent", "errored"];
const REFRESH_MS = 10_000;

/** Hourly bars of received messages, the errored part drawn over them. */
function HourChart({ hours, label }: { hours: Route["hours"]; label: string }) {
  const top = Math.max(1, ...hours.map((h) => h.received));
  const w = 8;
  const h = 40;
  const total = hours.reduce((n, x) => n + x.received, 0);
  const errored = hours.reduce((n, x) => n + x.errored, 0);
  return (
    <svg className="hour-chart" viewBox={`0 0 ${hours.length * w} ${h}`} width={hours.length * w * 1.5} height={h} role="img" aria-label={`${label}: ${total} received, ${errored} errored over ${hours.length} hours`}>
      {hours.map((x, i) => (
        <g key={x.start}>
          <title>{`${new Date(x.start).toLocaleString()}: ${x.received} received, ${x.errored} errored`}</title>
          <rect x={i * w + 1} y={h - (x.received / top) * h} width={w - 2} height={(x.received / top) * h} className="bar-received" />
          <rect x={i * w + 1} y={h - (x.errored / top) * h} width={w - 2} height={(x.errored / top) * h} className="bar-errored" />
        </g>
      ))}
    </svg>
  );
}

export function Channels() {
  const stats = useApi<{ since: string; routes: Route[] }>("/api/hl7/messages/stats?hours=24");
  const destinations = useApi<{ destinations: Destination[]; total_count: number }>("/api/v1/destinations?limit=100");
  usePolling(!stats.loading && !destinations.loading, REFRESH_MS, stats.reload, destinations.reload);
  return (
    <>
      <h1>Channels</h1>
      <h2>Inbound routes, last 24 hours</h2>
      {stats.error && <ErrorMessage error={stats.error} />}
      {!stats.data && !stats.error && <Loading what="the inbound counts" />}
      {stats.data && stats.data.routes.length === 0 && (
        <EmptyState title="No messages in the last 24 hours">
          <p>Messages arrive from the on-premises bridge (MLLP) or through POST /api/v1/hl7/messages.</p>
        </EmptyState>
      )}
      {stats.data && stats.data.routes.length > 0 && (
        <table className="channels">
          <caption className="visually-hidden">Inbound routes</caption>
          <TableHead columns={["Sender", ...FIGURES.map((f) => `${f[0]?.toUpperCase()}${f.slice(1)}`), "Per hour"]} />
          <tbody>
            {stats.data.routes.map((r) => (
              <tr key={`${r.protocol} ${r.sender}`} data-route={r.sender ?? ""}>
                <td>
                  {r.sender ? <Link href={withQuery("/messages", { sender: r.sender })}>{r.sender}</Link> : <Link href="/messages?status=rejected">unidentified (rejected)</Link>} <span className="muted">{r.protocol}</span>
                </td>
                {FIGURES.map((f) => (
                  <td key={f} data-figure={f}>
                    {r[f]}
                  </td>
                ))}
                <td>
                  <HourChart hours={r.hours} label={r.sender ?? "unidentified"} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Destinations</h2>
      {destinations.error && <ErrorMessage error={destinations.error} />}
      {destinations.data && destinations.data.total_count === 0 && <p className="muted">No destinations.</p>}
      {destinations.data && destinations.data.total_count > 0 && (
        <table>
          <caption className="visually-hidden">Destinations</caption>
          <TableHead columns={["Destination", "Status", "Queued", "In flight", "Dead", "Sent (1 h)", "Failed attempts (1 h)"]} />
          <tbody>
            {destinations.data.destinations.map((d) => (
              <tr key={d.id} data-destination={d.id}>
                <td>
                  <Link href={`/destinations/${encodeURIComponent(d.id)}`}>{d.name}</Link>
                </td>
                <td>{d.status}</td>
                <td>{d.figures.depth}</td>
                <td>{d.figures.in_flight}</td>
                <td>{d.figures.dead}</td>
                <td>{d.figures.delivered.m60}</td>
                <td>{d.figures.failed_attempts.m60}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
