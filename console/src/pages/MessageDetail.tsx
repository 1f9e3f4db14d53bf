// One inbound message: its header facts, the failure, the executions it started and the FHIR
// resources they wrote (linked to the FHIR browser), reprocess, and the message in tabs: parsed
// (segments, fields and components named), raw, the FHIR written, the ACK sent and each
// destination's response.
import { useEffect, useState } from "react";
import { Link } from "wouter";
import { ErrorMessage, Loading } from "../components/States";
import { ApiFailure, api } from "../lib/api";
import { useSession } from "../lib/session";
import { useApi } from "../lib/use-api";
import { Hl7View } from "../messages/Hl7View";
import { AckView, DestinationResponses, FhirResources, RawText } from "../messages/MessageViews";
import type { MessageDetail as Detail } from "../messages/types";

const POLL_MS = 1000;
const REPROCESSABLE = new Set(["processed", "unrouted", "failed"]);
const TABS = { parsed: "Parsed", raw: "Raw", fhir: "FHIR", ack: "ACK", destinations: "Destinations" } as const;
type Tab = keyof typeof TABS;

export function MessageDetail({ id }: { id: string }) {
  const { can, session } = useSession();
  const { data, error, loading, reload } = useApi<Detail>(`/api/hl7/messages/${encodeURIComponent(id)}`);
  const [failure, setFailure] = useState<ApiFailure>();
  const [busy, setBusy] = useState(false);
  const [tab, setTab] = useState<Tab>("parsed");

  // Routing is asynchronous: a received (queued) message is fetched again until it settles.
  useEffect(() => {
    if (data?.status !== "received") return;
    const timer = setTimeout(reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [data, reload]);

  async function reprocess() {
    setBusy(true);
    setFailure(undefined);
    try {
      await api(`/api/hl7/messages/${encodeURIComponent(id)}/reprocess`, { method: "POST" });
      reload();
    } catch (e) {
      setFailure(e instanceof ApiFailure ? e : new ApiFailure(0, "CLIENT", String(e)));
    } finally {
      setBusy(false);
    }
  }

  if (error) return <ErrorMessage error={error} />;
  if (loading && !data) return <Loading what="the message" />;
  if (!data) return null;
  const orgId = session?.organization.id ?? "";
  return (
    <>
      <p>
        <Link href="/messages">← Messages</Link>
      </p>
      <h1>
        {data.message_type ? `${data.message_type}${data.trigger_event ? `^${data.trigger_event}` : ""}` : data.protocol} message{" "}
        <span className={`badge ${data.status}`} data-message-status={data.status}>
          {data.status}
        </span>
      </h1>
      <dl className="facts">
        <dt>Sender</dt>
        <dd>{data.sender ?? "—"}</dd>
        <dt>Control id</dt>
        <dd>{data.control_id ?? "—"}</dd>
        <dt>Protocol</dt>
        <dd>
          {data.protocol}
          {data.version && ` ${data.version}`}
        </dd>
        <dt>Received</dt>
        <dd>{new Date(data.received_at).toLocaleString()}</dd>
        <dt>Attempts</dt>
        <dd>{data.attempts}</dd>
      </dl>
      {data.error && (
        <div className="error" role="alert">
          <strong>{data.error.code}</strong>
          <p>{data.error.message}</p>
        </div>
      )}
      {can("messages:manage") && (
        <p>
          <button type="button" disabled={busy || !REPROCESSABLE.has(data.status)} onClick={() => void reprocess()}>
            Reprocess
          </button>{" "}
          <span className="muted">
            {data.status === "received" ? "Routing…" : "Routes the message again through the deployed pipelines whose trigger matches it."}
          </span>
        </p>
      )}
      {failure && <ErrorMessage error={failure} />}
      <h2>Executions</h2>
      {data.executions.length === 0 ? (
        <p className="muted">No pipeline has run for this message{data.status === "unrouted" ? ": none deployed matches it. Deploy one with an HL7 trigger, then reprocess." : "."}</p>
      ) : (
        <ul className="message-executions">
          {data.executions.map((x) => (
            <li key={x}>
              <Link href={`/executions/${x}`}>
                <code>{x}</code>
              </Link>
            </li>
          ))}
        </ul>
      )}
      <h2>Resulting FHIR resources</h2>
      {data.resources.length === 0 ? (
        <p className="muted">None written.</p>
      ) : (
        <ul className="message-resources">
          {data.resources.map((ref) => (
            <li key={ref}>
              <Link href={`/fhir-browser/${ref}`}>{ref}</Link>
            </li>
          ))}
        </ul>
      )}
      <h2>Message</h2>
      <div role="tablist" aria-label="Message views" className="tabs">
        {(Object.keys(TABS) as Tab[]).map((t) => (
          <button key={t} type="button" role="tab" id={`tab-${t}`} aria-selected={tab === t} aria-controls={`panel-${t}`} onClick={() => setTab(t)}>
            {TABS[t]}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`}>
        {tab === "parsed" && (data.protocol === "hl7v2" ? <Hl7View raw={data.raw} /> : <RawText raw={data.raw} />)}
        {tab === "raw" && <RawText raw={data.raw} />}
        {tab === "fhir" && <FhirResources orgId={orgId} refs={data.resources} />}
        {tab === "ack" && <AckView ack={data.ack} />}
        {tab === "destinations" && <DestinationResponses executions={data.executions} />}
      </div>
    </>
  );
}
