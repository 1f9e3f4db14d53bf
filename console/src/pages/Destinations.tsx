// Destinations: every outbound endpoint with its queue's state, as an interface engine's dashboard
// shows its channels: status (active, paused, failing with the failure class and since when),
// target, depth, oldest message, throughput, lag and dead letters. Fetched again every few
// seconds, so the figures move without a reload.
import { useState } from "react";
import { Link } from "wouter";
import { PAGE_SIZE, Pager } from "../components/Pager";
import { EmptyState, ErrorMessage, Loading } from "../components/States";
import { TableHead } from "../components/TableHead";
import { StatusBadge } from "../destinations/StatusBadge";
import { duration, targetText } from "../destinations/format";
import type { Destination } from "../destinations/types";
import { useTargetNames } from "../destinations/use-names";
import { withQuery } from "../lib/api";
import { useSession } from "../lib/session";
import { useApi } from "../lib/use-api";
import { usePolling } from "../lib/use-polling";

export const DESTINATIONS_POLL_MS = 3000;

export function Destinations() {
  const { can } = useSession();
  const [offset, setOffset] = useState(0);
  const list = useApi<{ destinations: Destination[]; total_count: number }>(withQuery("/api/v1/destinations", { limit: PAGE_SIZE, offset }));
  const { names } = useTargetNames();
  const { data, reload, loading } = list;

  usePolling(!loading, DESTINATIONS_POLL_MS, reload);

  return (
    <>
      <h1>Destinations</h1>
      <p className="toolbar">
        {can("connectors:manage") && (
          <Link className="button-link" href="/destinations/new">
            New destination
          </Link>
        )}{" "}
        {can("org:read") && <Link href="/settings/bridges">Bridges</Link>}{" "}
        <span className="muted">Refreshed every {DESTINATIONS_POLL_MS / 1000} s.</span>
      </p>
      {list.error && <ErrorMessage error={list.error} />}
      {!data && !list.error && <Loading what="destinations" />}
      {data?.total_count === 0 && (
        <EmptyState title="No destinations yet">
          <p>A destination is an endpoint the organization delivers to (an MLLP or HTTP connector, a URL, or a system on the hospital network through a bridge), each with its own durable queue. Pipelines send to it with output.enqueue or the queued mode of hl7.send.</p>
        </EmptyState>
      )}
      {data && data.total_count > 0 && (
        <>
          <table className="destinations">
            <caption className="visually-hidden">Destinations</caption>
            <TableHead columns={["Name", "Status", "Target", "Queue depth", "Oldest message", "Throughput (per min, 15 min)", "Mean lag (15 min)", "Dead"]} />
            <tbody>
              {data.destinations.map((d) => (
                <tr key={d.id} data-destination-id={d.id}>
                  <td>
                    <Link href={`/destinations/${d.id}`}>{d.name}</Link>
                    {d.owner && <div className="muted">managed by {d.owner.kind}</div>}
                  </td>
                  <td>
                    <StatusBadge destination={d} />
                  </td>
                  <td className="wrap">
                    <code>{targetText(d.target, names)}</code>
                  </td>
                  <td data-figure="depth">
                    {d.figures.depth}
                    {d.figures.in_flight > 0 && <span className="muted"> ({d.figures.in_flight} in flight)</span>}
                  </td>
                  <td data-figure="oldest">{duration(d.figures.oldest_age_ms)}</td>
                  <td data-figure="throughput">{d.figures.throughput_per_min_15m.toFixed(1)}</td>
                  <td data-figure="lag">{duration(d.figures.mean_lag_ms_15m)}</td>
                  <td data-figure="dead">{d.figures.dead}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager label="Destinations" offset={offset} total={data.total_count} onChange={setOffset} />
        </>
      )}
    </>
  );
}
