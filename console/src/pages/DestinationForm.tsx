// Create or edit a destination: its name, its target (one of the organization's connectors, a
// URL, or a bridge and the address on its network), ordering and concurrency, retry settings,
// timeout, HTTP method and headers. Empty numbers take the service's defaults; the service
// checks everything (a URL against the outbound guard, a connector or bridge of this org) and
// its refusal is shown with the field it names.
import { type FormEvent, useEffect, useState } from "react";
import { Link, useLocation } from "wouter";
import { ErrorMessage, Loading } from "../components/States";
import type { Destination, DestinationInput } from "../destinations/types";
import { useTargetNames } from "../destinations/use-names";
import { api } from "../lib/api";
import { useAction } from "../lib/use-action";
import { useApi } from "../lib/use-api";

const ACK_CODES = ["AE", "CE", "AR", "CR"] as const;

interface Draft {
  name: string;
  description: string;
  kind: "connector" | "url" | "bridge";
  connector_id: string;
  url: string;
  bridge_id: string;
  address: string;
  ordering: "fifo" | "per_key";
  concurrency: string;
  initial_delay_ms: string;
  max_delay_ms: string;
  horizon_hours: string;
  ack_codes: string[];
  timeout_ms: string;
  method: "POST" | "PUT";
  headers: string;
}

const EMPTY: Draft = { name: "", description: "", kind: "connector", connector_id: "", url: "", bridge_id: "", address: "", ordering: "fifo", concurrency: "", initial_delay_ms: "", max_delay_ms: "", horizon_hours: "", ack_codes: ["AE", "CE"], timeout_ms: "", method: "POST", headers: "" };

function draftOf(d: Destination): Draft {
  const t = d.target;
  return {
    name: d.name,
    description: d.description ?? "",
    kind: t.kind === "websocket" ? "url" : t.kind,
    connector_id: t.kind === "connector" ? t.connector_id : "",
    url: t.kind === "url" ? t.url : "",
    bridge_id: t.kind === "bridge" ? t.bridge_id : "",
    address: t.kind === "bridge" ? t.address : "",
    ordering: d.ordering,
    concurrency: String(d.concurrency),
    initial_delay_ms: String(d.retry.initial_delay_ms),
    max_delay_ms: String(d.retry.max_delay_ms),
    horizon_hours: String(d.retry.horizon_hours),
    ack_codes: d.retry.retryable_ack_codes,
    timeout_ms: String(d.timeout_ms),
    method: d.http.method === "PUT" ? "PUT" : "POST",
    headers: Object.entries(d.http.headers)
      .map(([k, v]) => `${k}: ${v}`)
      .join("\n"),
  };
}

const num = (s: string) => (s.trim() === "" ? undefined : Number(s));

function bodyOf(d: Draft): DestinationInput {
  const target: DestinationInput["target"] = d.kind === "connector" ? { kind: "connector", connector_id: d.connector_id } : d.kind === "url" ? { kind: "url", url: d.url.trim() } : { kind: "bridge", bridge_id: d.bridge_id, address: d.address.trim() };
  const headers = Object.fromEntries(
    d.headers
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean)
      .map((l) => {
        const i = l.indexOf(":");
        return i < 0 ? [l, ""] : [l.slice(0, i).trim(), l.slice(i + 1).trim()];
      }),
  );
  const retry = { initial_delay_ms: num(d.initial_delay_ms), max_delay_ms: num(d.max_delay_ms), horizon_hours: num(d.horizon_hours), retryable_ack_codes: d.ack_codes as ("AE" | "CE" | "AR" | "CR")[] };
  return {
    name: d.name.trim(),
    description: d.description.trim() || null,
    target,
    ordering: d.ordering,
    ...(d.ordering === "per_key" && num(d.concurrency) !== undefined ? { concurrency: num(d.concurrency) } : {}),
    retry: Object.fromEntries(Object.entries(retry).filter(([, v]) => v !== undefined)),
    ...(num(d.timeout_ms) !== undefined ? { timeout_ms: num(d.timeout_ms) } : {}),
    http: { method: d.method, headers },
  };
}

export function DestinationForm({ id }: { id?: string }) {
  const existing = useApi<Destination>(id ? `/api/v1/destinations/${encodeURIComponent(id)}` : null);
  const { connectors, bridges } = useTargetNames();
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [, navigate] = useLocation();
  const act = useAction();
  const set = <K extends keyof Draft>(k: K, v: Draft[K]) => setDraft((d) => ({ ...d, [k]: v }));

  useEffect(() => {
    if (existing.data) setDraft(draftOf(existing.data));
  }, [existing.data]);

  const connectorList = connectors.data?.connectors ?? [];
  const bridgeList = bridges.data?.bridges ?? [];
  // The first connector or bridge is chosen until the user picks another.
  const connectorId = draft.connector_id || connectorList[0]?.id || "";
  const bridgeId = draft.bridge_id || bridgeList[0]?.id || "";

  function save(e: FormEvent) {
    e.preventDefault();
    void act.run(async () => {
      const body = bodyOf({ ...draft, connector_id: connectorId, bridge_id: bridgeId });
      const saved = id ? await api<Destination>(`/api/v1/destinations/${encodeURIComponent(id)}`, { method: "PATCH", body }) : await api<Destination>("/api/v1/destinations", { method: "POST", body });
      navigate(`/destinations/${saved.id}`);
    });
  }

  if (id && existing.error) return <ErrorMessage error={existing.error} />;
  if (id && !existing.data) return <Loading what="the destination" />;
  return (
    <>
      <p>
        <Link href={id ? `/destinations/${id}` : "/destinations"}>← {id ? "Destination" : "Destinations"}</Link>
      </p>
      <h1>{id ? `Edit ${existing.data?.name}` : "New destination"}</h1>
      <form className="destination-form" onSubmit={save} aria-label={id ? "Edit destination" : "New destination"}>
        <fieldset>
          <legend>Destination</legend>
          <label>
            Name
            <input name="name" value={draft.name} onChange={(e) => set("name", e.target.value)} required maxLength={120} />
          </label>
          <label>
            Description
            <input name="description" value={draft.description} onChange={(e) => set("description", e.target.value)} maxLength={1000} />
          </label>
        </fieldset>
        <fieldset>
          <legend>Target</legend>
          <label>
            Kind
            <select name="target_kind" value={draft.kind} onChange={(e) => set("kind", e.target.value as Draft["kind"])}>
              <option value="connector">Connector (MLLP, FHIR, HTTP…)</option>
              <option value="url">URL</option>
              <option value="bridge">Through a bridge (hospital network)</option>
            </select>
          </label>
          {draft.kind === "connector" && (
            <label>
              Connector
              <select name="connector_id" value={connectorId} onChange={(e) => set("connector_id", e.target.value)} required>
                {connectorList.length === 0 && <option value="">No connectors: add one under Connectors</option>}
                {connectorList.map((c) => (
                  <option key={c.id} value={c.id}>
                    {c.name} ({c.type}, {c.endpoint})
                  </option>
                ))}
              </select>
            </label>
          )}
          {draft.kind === "url" && (
            <label>
              URL
              <input name="url" type="url" value={draft.url} onChange={(e) => set("url", e.target.value)} required placeholder="https://…" />
            </label>
          )}
          {draft.kind === "bridge" && (
            <>
              <label>
                Bridge
                <select name="bridge_id" value={bridgeId} onChange={(e) => set("bridge_id", e.target.value)} required>
                  {bridgeList.length === 0 && <option value="">No bridges: register one under Bridges</option>}
                  {bridgeList.map((b) => (
                    <option key={b.id} value={b.id}>
                      {b.name} ({b.status})
                    </option>
                  ))}
                </select>
              </label>
              <label>
                Address on the bridge's network
                <input name="address" value={draft.address} onChange={(e) => set("address", e.target.value)} required placeholder="mllp://10.0.0.5:2575, https://…, file:///dir" />
              </label>
            </>
          )}
        </fieldset>
        <fieldset>
          <legend>Delivery</legend>
          <label>
            Ordering
            <select name="ordering" value={draft.ordering} onChange={(e) => set("ordering", e.target.value as Draft["ordering"])}>
              <option value="fifo">FIFO: one at a time, in order</option>
              <option value="per_key">Per key: in order per key, keys in parallel</option>
            </select>
          </label>
          {draft.ordering === "per_key" && (
            <label>
              Concurrency (keys at once, default 4)
              <input name="concurrency" type="number" min={1} max={16} value={draft.concurrency} onChange={(e) => set("concurrency", e.target.value)} />
            </label>
          )}
          <label>
            Timeout per attempt, ms (default 10000)
            <input name="timeout_ms" type="number" min={100} max={120000} value={draft.timeout_ms} onChange={(e) => set("timeout_ms", e.target.value)} />
          </label>
          <label>
            HTTP method
            <select name="method" value={draft.method} onChange={(e) => set("method", e.target.value as Draft["method"])}>
              <option>POST</option>
              <option>PUT</option>
            </select>
          </label>
          <label>
            HTTP headers (one "Name: value" a line)
            <textarea name="headers" rows={3} value={draft.headers} onChange={(e) => set("headers", e.target.value)} />
          </label>
        </fieldset>
        <fieldset>
          <legend>Retry</legend>
          <label>
            First retry after, ms (default 1000)
            <input name="initial_delay_ms" type="number" min={100} max={3600000} value={draft.initial_delay_ms} onChange={(e) => set("initial_delay_ms", e.target.value)} />
          </label>
          <label>
            Longest delay, ms (default 3600000)
            <input name="max_delay_ms" type="number" min={100} max={86400000} value={draft.max_delay_ms} onChange={(e) => set("max_delay_ms", e.target.value)} />
          </label>
          <label>
            Give up after, hours (default 72)
            <input name="horizon_hours" type="number" min={0.01} max={720} step="any" value={draft.horizon_hours} onChange={(e) => set("horizon_hours", e.target.value)} />
          </label>
          <fieldset className="checks">
            <legend>HL7 ACK codes retried (the others dead-letter)</legend>
            {ACK_CODES.map((c) => (
              <label key={c} className="checkbox">
                <input type="checkbox" name={`ack_${c}`} checked={draft.ack_codes.includes(c)} onChange={(e) => set("ack_codes", e.target.checked ? [...draft.ack_codes, c] : draft.ack_codes.filter((x) => x !== c))} /> {c}
              </label>
            ))}
          </fieldset>
        </fieldset>
        {act.failure && <ErrorMessage error={act.failure} />}
        <p>
          <button type="submit" disabled={act.busy}>
            {id ? "Save destination" : "Create destination"}
          </button>
        </p>
      </form>
    </>
  );
}
