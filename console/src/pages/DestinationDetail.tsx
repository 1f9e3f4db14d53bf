// One destination: its status and queue figures (fetched again every few seconds), its
// configuration, the operator's actions and its messages.
import { Link } from "wouter";
import { ErrorMessage, Loading } from "../components/States";
import { DestinationActions } from "../destinations/Actions";
import { failureWords } from "../destinations/failure-words";
import { duration, targetText, when } from "../destinations/format";
import { MessageList } from "../destinations/MessageList";
import { StatusBadge } from "../destinations/StatusBadge";
import type { Destination } from "../destinations/types";
import { useTargetNames } from "../destinations/use-names";
import { useApi } from "../lib/use-api";
import { usePolling } from "../lib/use-polling";
import { DESTINATIONS_POLL_MS } from "./Destinations";

export function DestinationDetail({ id }: { id: string }) {
  const dest = useApi<Destination>(`/api/v1/destinations/${encodeURIComponent(id)}`);
  const { names } = useTargetNames();
  const { data: d, loading, reload } = dest;

  usePolling(!loading && !dest.error, DESTINATIONS_POLL_MS, reload);

  if (dest.error && !d) return <ErrorMessage error={dest.error} />;
  if (!d) return <Loading what="the destination" />;
  const f = d.figures;
  return (
    <>
      <p>
        <Link href="/destinations">← Destinations</Link>
      </p>
      <h1>
        {d.name} <StatusBadge destination={d} />
      </h1>
      {d.description && <p>{d.description}</p>}
      {d.owner && <p className="notice">Managed by a {d.owner.kind} ({d.owner.id}): change it through its {d.owner.kind}.</p>}
      {d.status === "failing" && f.last_failure && (
        <div className="error" role="alert">
          <strong>
            Failing since {when(f.failing_since)}: {f.last_failure.class}
          </strong>
          <p>
            {f.last_failure.message} — {failureWords(f.last_failure.class)}.
          </p>
        </div>
      )}
      <DestinationActions destination={d} onDone={reload} />
      <h2>Queue</h2>
      <dl className="facts destination-figures">
        <dt>Queue depth</dt>
        <dd data-figure="depth">
          {f.depth} waiting ({f.in_flight} in flight)
        </dd>
        <dt>Oldest message</dt>
        <dd data-figure="oldest">
          {duration(f.oldest_age_ms)}
          {f.oldest_pending_at && <span className="muted"> (enqueued {when(f.oldest_pending_at)})</span>}
        </dd>
        <dt>Dead</dt>
        <dd data-figure="dead">{f.dead}</dd>
        <dt>Delivered</dt>
        <dd data-figure="delivered">
          {f.delivered.m1} in 1 min, {f.delivered.m15} in 15 min, {f.delivered.m60} in 60 min (last {when(f.last_delivered_at)})
        </dd>
        <dt>Failed attempts</dt>
        <dd>
          {f.failed_attempts.m1} in 1 min, {f.failed_attempts.m15} in 15 min, {f.failed_attempts.m60} in 60 min
        </dd>
        <dt>Throughput</dt>
        <dd>{f.throughput_per_min_15m.toFixed(1)} per min over 15 min</dd>
        <dt>Lag (15 min)</dt>
        <dd>
          mean {duration(f.mean_lag_ms_15m)}, max {duration(f.max_lag_ms_15m)}
        </dd>
        <dt>Delivered messages kept</dt>
        <dd>{f.delivered_retained} (7 days)</dd>
      </dl>
      <h2>Configuration</h2>
      <dl className="facts destination-config">
        <dt>Target</dt>
        <dd className="wrap">
          <code>{targetText(d.target, names)}</code>
        </dd>
        <dt>Ordering</dt>
        <dd>{d.ordering === "per_key" ? `per key, up to ${d.concurrency} keys at once` : "FIFO, one at a time"}</dd>
        <dt>Retry</dt>
        <dd>
          from {duration(d.retry.initial_delay_ms)} doubling to {duration(d.retry.max_delay_ms)}, for {d.retry.horizon_hours} h; retryable ACK codes {d.retry.retryable_ack_codes.join(", ") || "none"}
        </dd>
        <dt>Timeout</dt>
        <dd>{duration(d.timeout_ms)}</dd>
        <dt>HTTP</dt>
        <dd>
          {d.http.method}
          {Object.keys(d.http.headers).length > 0 && `, headers ${Object.keys(d.http.headers).join(", ")}`}
        </dd>
        <dt>Signed</dt>
        <dd>{d.signed ? "Standard Webhooks signatures" : "no"}</dd>
        {d.hl7 && (
          <>
            <dt>HL7 MSH</dt>
            <dd>
              {Object.entries(d.hl7)
                .map(([k, v]) => `${k.replace(/_/g, " ")}: ${v}`)
                .join("; ")}
            </dd>
          </>
        )}
        <dt>Created</dt>
        <dd>{when(d.created_at)}</dd>
        <dt>Updated</dt>
        <dd>{when(d.updated_at)}</dd>
      </dl>
      <MessageList destinationId={d.id} paused={d.state === "paused"} pollMs={DESTINATIONS_POLL_MS} onChanged={reload} />
    </>
  );
}
