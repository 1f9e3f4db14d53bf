// A message's views beside its parsed tree, as Mirth's message browser has them: the raw text, the
// FHIR resources its pipelines wrote, the ACK its sender got, and what each destination its
// pipelines queued to answered. The last two are read from existing APIs: the executions' node
// outputs name the destinations and delivery ids (`queued: true, destination_id, delivery_id`),
// whose messages carry their attempts and last answer.
import { useEffect, useState } from "react";
import { Link } from "wouter";
import { ErrorMessage, Loading } from "../components/States";
import { TableHead } from "../components/TableHead";
import { ApiFailure, api } from "../lib/api";

const failureOf = (e: unknown) => (e instanceof ApiFailure ? e : new ApiFailure(0, "CLIENT", String(e)));

/** HL7 v2 text one segment per line (segments end in CR). */
export function RawText({ raw }: { raw: string }) {
  return (
    <pre className="json-block" data-view="raw">
      {raw.replace(/\r\n?/g, "\n")}
    </pre>
  );
}

export function AckView({ ack }: { ack: string | null }) {
  if (!ack) return <p className="muted">No acknowledgement kept for this message (it was received before the service kept them, or was too broken to answer).</p>;
  return <RawText raw={ack} />;
}

/** Each resource written, as JSON, with a link to its record in the FHIR browser. */
export function FhirResources({ orgId, refs }: { orgId: string; refs: string[] }) {
  const [loaded, setLoaded] = useState<Record<string, unknown>>({});
  const [failure, setFailure] = useState<ApiFailure>();
  useEffect(() => {
    let live = true;
    Promise.all(refs.map(async (ref) => [ref, await api<unknown>(`/fhir/r4/${encodeURIComponent(orgId)}/${ref}`)] as const))
      .then((pairs) => live && setLoaded(Object.fromEntries(pairs)))
      .catch((e: unknown) => live && setFailure(failureOf(e)));
    return () => {
      live = false;
    };
  }, [orgId, refs]);
  if (!refs.length) return <p className="muted">No FHIR resources written.</p>;
  if (failure) return <ErrorMessage error={failure} />;
  return (
    <>
      {refs.map((ref) => (
        <section key={ref} className="message-fhir" aria-label={ref}>
          <h3>
            <Link href={`/fhir-browser/${ref}`}>{ref}</Link>
          </h3>
          {ref in loaded ? <pre className="json-block">{JSON.stringify(loaded[ref], null, 2)}</pre> : <Loading what={ref} />}
        </section>
      ))}
    </>
  );
}

interface Delivery {
  destination_id: string;
  delivery_id: string;
}

interface QueuedMessage {
  id: string;
  state: string;
  attempts: number;
  delivered_at: string | null;
  last_result: { ok: boolean; status?: number; ack_code?: string; response?: string; failure?: { class: string; message: string } } | null;
}

/** Every `{queued: true, destination_id, delivery_id}` in an execution's node outputs. */
export function deliveriesIn(value: unknown, into: Delivery[] = []): Delivery[] {
  if (Array.isArray(value)) for (const v of value) deliveriesIn(v, into);
  else if (value && typeof value === "object") {
    const o = value as Record<string, unknown>;
    if (o.queued === true && typeof o.destination_id === "string" && typeof o.delivery_id === "string") into.push({ destination_id: o.destination_id, delivery_id: o.delivery_id });
    else for (const v of Object.values(o)) deliveriesIn(v, into);
  }
  return into;
}

const PENDING = new Set(["queued", "in_flight"]);
const POLL_MS = 1000;

export function DestinationResponses({ executions }: { executions: string[] }) {
  const [rows, setRows] = useState<{ delivery: Delivery; message?: QueuedMessage; error?: ApiFailure }[]>();
  const [failure, setFailure] = useState<ApiFailure>();
  const [tick, setTick] = useState(0);
  // Delivery is asynchronous: asked again while a message still waits or is being sent.
  useEffect(() => {
    if (!rows?.some((r) => r.message && PENDING.has(r.message.state))) return;
    const timer = setTimeout(() => setTick((t) => t + 1), POLL_MS);
    return () => clearTimeout(timer);
  }, [rows]);
  // biome-ignore lint/correctness/useExhaustiveDependencies: tick asks again for the same executions.
  useEffect(() => {
    let live = true;
    (async () => {
      const runs = await Promise.all(executions.map((x) => api<{ nodes: Record<string, { outputs?: unknown }> }>(`/api/executions/${encodeURIComponent(x)}`)));
      const deliveries = runs.flatMap((r) => Object.values(r.nodes ?? {}).flatMap((n) => deliveriesIn(n.outputs)));
      return Promise.all(
        deliveries.map(async (delivery) => {
          try {
            const found = await api<{ message: QueuedMessage }>(`/api/v1/destinations/${encodeURIComponent(delivery.destination_id)}/messages/${encodeURIComponent(delivery.delivery_id)}`);
            return { delivery, message: found.message };
          } catch (e) {
            return { delivery, error: failureOf(e) };
          }
        }),
      );
    })()
      .then((r) => live && setRows(r))
      .catch((e: unknown) => live && setFailure(failureOf(e)));
    return () => {
      live = false;
    };
  }, [executions, tick]);
  if (failure) return <ErrorMessage error={failure} />;
  if (!rows) return <Loading what="the destinations' responses" />;
  if (!rows.length) return <p className="muted">Its pipelines queued nothing to a destination.</p>;
  return (
    <table>
      <caption className="visually-hidden">Destination responses</caption>
      <TableHead columns={["Destination", "State", "Attempts", "Answer"]} />
      <tbody>
        {rows.map(({ delivery, message, error }) => (
          <tr key={`${delivery.destination_id} ${delivery.delivery_id}`} data-delivery={delivery.delivery_id}>
            <td>
              <Link href={`/destinations/${encodeURIComponent(delivery.destination_id)}/messages/${encodeURIComponent(delivery.delivery_id)}`}>{delivery.destination_id}</Link>
            </td>
            <td>{message?.state ?? "—"}</td>
            <td>{message?.attempts ?? "—"}</td>
            <td>
              {error?.message}
              {message?.last_result && (
                <>
                  {message.last_result.status !== undefined && `HTTP ${message.last_result.status} `}
                  {message.last_result.ack_code && `ACK ${message.last_result.ack_code} `}
                  {message.last_result.failure && `${message.last_result.failure.class}: ${message.last_result.failure.message}`}
                  {message.last_result.response && <pre className="json-block">{message.last_result.response}</pre>}
                </>
              )}
              {message && !message.last_result && <span className="muted">not attempted yet</span>}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
