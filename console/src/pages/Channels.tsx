// The channels dashboard (Mirth's): per inbound route (protocol and sender) the last 24 hours'
// received, filtered, queued, sent and errored messages with an hourly chart, from the service's
// aggregate (GET /api/hl7/messages/stats); per destination the same 24 hours of its queue
// (received, still queued, sent, failed attempts) with an hourly chart, what waits now and the dead
// (GET /api/v1/destinations/activity). Refreshed every 10 s.
import { Link } from "wouter";
import { HourChart } from "../components/HourChart";
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
interface DestinationCounts {
  received: number;
  queued: number;
  sent: number;
  errored: number;
}
interface Destination {
  id: string;
  name: string;
  status: string;
  depth: number;
  dead: number;
  totals: DestinationCounts;
  hours: ({ start: string } & DestinationCounts)[];
}

const FIGURES: (keyof Counts)[] = ["received", "filtered", "queued", "sent", "errored"];
const DESTINATION_FIGURES: (keyof DestinationCounts)[] = ["received", "queued", "sent", "errored"];
const words = (f: string) => `${f[0]?.toUpperCase()}${f.slice(1)}`;
const REFRESH_MS = 10_000;
const ERRORED_FILL = "#b3261e";

/** Hourly bars of received messages, the errored part drawn over them. */
function RouteChart({ hours, label }: { hours: Route["hours"]; label: string }) {
  const total = hours.reduce((n, x) => n + x.received, 0);
  const errored = hours.reduce((n, x) => n + x.errored, 0);
  const parts = [
    { name: "received", counts: hours.map((h) => h.received) },
    { name: "errored", counts: hours.map((h) => h.errored), fill: ERRORED_FILL },
  ];
  return <HourChart hours={hours.map((h) => h.start)} parts={parts} stacked={false} height={40} barWidth={10} label={`${label}: ${total} received, ${errored} errored over ${hours.length} hours`} />;
}

/** A destination's hourly bars: messages sent, with the failed attempts drawn over them. */
function DestinationChart({ d }: { d: Destination }) {
  const parts = [
    { name: "sent", counts: d.hours.map((h) => h.sent) },
    { name: "errored", counts: d.hours.map((h) => h.errored), fill: ERRORED_FILL },
  ];
  return (
    <HourChart
      hours={d.hours.map((h) => h.start)}
      parts={parts}
      stacked={false}
      height={40}
      barWidth={10}
      label={`${d.name}: ${d.totals.received} received, ${d.totals.sent} sent, ${d.totals.errored} failed attempts over ${d.hours.length} hours`}
    />
  );
}

export function Channels() {
  const stats = useApi<{ since: string; routes: Route[] }>("/api/hl7/messages/stats?hours=24");
  const destinations = useApi<{ destinations: Destination[]; total_count: number }>("/api/v1/destinations/activity?limit=100");
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
          <TableHead columns={["Sender", ...FIGURES.map(words), "Per hour"]} />
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
                  <RouteChart hours={r.hours} label={r.sender ?? "unidentified"} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Destinations, last 24 hours</h2>
      {destinations.error && <ErrorMessage error={destinations.error} />}
      {destinations.data && destinations.data.total_count === 0 && <p className="muted">No destinations.</p>}
      {destinations.data && destinations.data.total_count > 0 && (
        <table className="channels">
          <caption className="visually-hidden">Destinations, last 24 hours</caption>
          <TableHead columns={["Destination", "Status", ...DESTINATION_FIGURES.map(words), "Waiting now", "Dead", "Per hour"]} />
          <tbody>
            {destinations.data.destinations.map((d) => (
              <tr key={d.id} data-destination={d.id}>
                <td>
                  <Link href={`/destinations/${encodeURIComponent(d.id)}`}>{d.name}</Link>
                </td>
                <td>{d.status}</td>
                {DESTINATION_FIGURES.map((f) => (
                  <td key={f} data-figure={f}>
                    {d.totals[f]}
                  </td>
                ))}
                <td data-figure="depth">{d.depth}</td>
                <td data-figure="dead">{d.dead}</td>
                <td>
                  <DestinationChart d={d} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
