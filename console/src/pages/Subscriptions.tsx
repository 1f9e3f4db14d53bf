// Subscriptions: the organization's FHIR Subscription resources (R4 criteria and Backport IG topic
// subscriptions) with their status, channel, endpoint and last error, and beside each the status
// of the destination queue that delivers its notifications (as the Destinations page shows it).
// Fetched again every few seconds, so a handshake turning a subscription active shows without a
// reload. Created and changed through the FHIR API (POST [base]/Subscription); docs/subscriptions.md.
import { useState } from "react";
import { Link } from "wouter";
import { EmptyState, ErrorMessage, Loading } from "../components/States";
import { TableHead } from "../components/TableHead";
import { StatusBadge } from "../destinations/StatusBadge";
import { useSession } from "../lib/session";
import { useApi } from "../lib/use-api";
import { usePolling } from "../lib/use-polling";
import { channelType, payloadContent, type Subscription, topicName } from "../outbound/subscription";
import { useManagedDestinations } from "../outbound/use-managed";
import { type Bundle, fhirBase, matches } from "../patients/fhir";
import { LinkPager } from "../patients/LinkPager";
import { DESTINATIONS_POLL_MS } from "./Destinations";

export function Subscriptions() {
  const { session } = useSession();
  const base = fhirBase(session?.organization.id ?? "");
  const [path, setPath] = useState(`${base}/Subscription?_count=20&_sort=-_lastUpdated`);
  const list = useApi<Bundle<Subscription>>(path);
  const managed = useManagedDestinations("subscription");
  const { loading, reload } = list;
  usePolling(!loading, DESTINATIONS_POLL_MS, reload, managed.reload);

  const subs = list.data ? matches(list.data) : [];
  return (
    <>
      <h1>Subscriptions</h1>
      <p className="toolbar">
        <span>
          FHIR Subscriptions notify a <code>rest-hook</code> endpoint or a websocket of changes to this organization's resources. Create and change them through the FHIR API (<code>POST {base}/Subscription</code>).
        </span>
        <span className="muted">Refreshed every {DESTINATIONS_POLL_MS / 1000} s.</span>
      </p>
      {list.error && <ErrorMessage error={list.error} />}
      {!list.data && !list.error && <Loading what="subscriptions" />}
      {list.data && subs.length === 0 && (
        <EmptyState title="No subscriptions">
          <p>
            Create one with the FHIR API: an R4 <code>criteria</code> search such as <code>Observation?code=http://loinc.org|8867-4</code>, or a topic (<code>Subscription/$topic-list</code>), with a rest-hook endpoint or the websocket channel.
          </p>
        </EmptyState>
      )}
      {subs.length > 0 && (
        <>
          <table className="subscriptions">
            <caption className="visually-hidden">Subscriptions</caption>
            <TableHead columns={["Subscription", "Status", "Criteria or topic", "Channel", "Endpoint", "Delivery"]} />
            <tbody>
              {subs.map((s) => {
                const dest = managed.byOwner.get(s.id);
                return (
                  <tr key={s.id} data-subscription-id={s.id} data-subscription-status={s.status ?? "requested"}>
                    <td className="wrap">
                      <Link href={`/subscriptions/${encodeURIComponent(s.id)}`}>{s.reason || s.id}</Link>
                      {s.reason && <div className="muted">{s.id}</div>}
                    </td>
                    <td>
                      <span className={`badge ${s.status ?? "requested"}`}>{s.status ?? "requested"}</span>
                      {s.error && <div className="failure-line wrap">{s.error}</div>}
                    </td>
                    <td className="wrap">{topicName(s) ? <>topic {topicName(s)}</> : <code>{s.criteria}</code>}</td>
                    <td>
                      {channelType(s)}
                      <div className="muted">{payloadContent(s)}</div>
                    </td>
                    <td className="wrap">{s.channel?.endpoint ? <code>{s.channel.endpoint}</code> : <span className="muted">{channelType(s) === "websocket" ? "bound sockets" : "—"}</span>}</td>
                    <td>{dest ? <StatusBadge destination={dest} /> : <span className="muted">{managed.loading ? "…" : "—"}</span>}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          {managed.partial && <p className="muted">The organization has more than 100 destinations: the queue status is shown for those among the first 100 only; the Destinations page lists every queue.</p>}
          <LinkPager bundle={list.data as Bundle<unknown>} label="Subscriptions" onChange={setPath} />
        </>
      )}
    </>
  );
}
