// Event webhooks: the organization's customer webhook endpoints (paged) with their events, state
// and the status of the destination queue that delivers them (as the Destinations page shows
// it); register one with its event types (the signing secret shown exactly once), disable and
// enable, delete. Each endpoint's page has its deliveries. Permission webhooks:manage
// (administrators, integration engineers); the API enforces it too. docs/webhooks.md.
import { type FormEvent, useState } from "react";
import { Link } from "wouter";
import { PAGE_SIZE, Pager } from "../components/Pager";
import { EmptyState, ErrorMessage, Loading } from "../components/States";
import { TableHead } from "../components/TableHead";
import { when } from "../destinations/format";
import { StatusBadge } from "../destinations/StatusBadge";
import { api, withQuery } from "../lib/api";
import { useAction } from "../lib/use-action";
import { useApi } from "../lib/use-api";
import { usePolling } from "../lib/use-polling";
import { useManagedDestinations } from "../outbound/use-managed";
import { endpointState, parseEventTypes, type WebhookEndpoint, type WebhookEndpointCreated, type WebhookEventType } from "../outbound/webhooks";
import { DESTINATIONS_POLL_MS } from "./Destinations";

/** Shows a just-made signing secret once, until dismissed. */
export function SecretOnce({ what, secret, onDone }: { what: string; secret: string; onDone(): void }) {
  return (
    <div className="secret" role="status">
      <p>
        {what} Copy its signing secret now: it is shown only this once. Receivers verify each request's <code>webhook-signature</code> with it (Standard Webhooks).
      </p>
      <input className="secret-value" aria-label="Signing secret" readOnly value={secret} onFocus={(e) => e.target.select()} />
      <button type="button" onClick={onDone}>
        Done
      </button>
    </div>
  );
}

export function Webhooks() {
  const [offset, setOffset] = useState(0);
  const list = useApi<{ webhook_endpoints: WebhookEndpoint[]; total_count: number }>(withQuery("/api/v1/webhook-endpoints", { limit: PAGE_SIZE, offset }));
  const catalog = useApi<{ event_types: WebhookEventType[] }>("/api/v1/webhook-event-types");
  const managed = useManagedDestinations("webhook");
  const [draft, setDraft] = useState({ url: "", description: "", patterns: "" });
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [created, setCreated] = useState<WebhookEndpointCreated>();
  const act = useAction();
  const { loading, reload } = list;
  usePolling(!loading, DESTINATIONS_POLL_MS, reload, managed.reload);

  // The catalog's FHIR entry is a template (fhir.{ResourceType}.created): typed as a pattern instead.
  const types = (catalog.data?.event_types ?? []).filter((t) => !t.type.includes("{"));
  const eventTypes = [...chosen, ...parseEventTypes(draft.patterns)];

  function toggle(type: string) {
    setChosen((s) => {
      const next = new Set(s);
      if (next.has(type)) next.delete(type);
      else next.add(type);
      return next;
    });
  }

  function create(e: FormEvent) {
    e.preventDefault();
    void act.run(async () => {
      const body = { url: draft.url.trim(), event_types: eventTypes, ...(draft.description.trim() ? { description: draft.description.trim() } : {}) };
      setCreated(await api<WebhookEndpointCreated>("/api/v1/webhook-endpoints", { method: "POST", body }));
      setDraft({ url: "", description: "", patterns: "" });
      setChosen(new Set());
      setOffset(0);
      reload();
      managed.reload();
    });
  }

  function setEnabled(w: WebhookEndpoint, enabled: boolean) {
    void act.run(async () => {
      await api(`/api/v1/webhook-endpoints/${encodeURIComponent(w.id)}`, { method: "PATCH", body: { enabled } });
      reload();
    });
  }

  function remove(w: WebhookEndpoint) {
    if (!window.confirm(`Delete the webhook endpoint ${w.url}? Its undelivered messages go with it.`)) return;
    void act.run(async () => {
      await api(`/api/v1/webhook-endpoints/${encodeURIComponent(w.id)}`, { method: "DELETE" });
      reload();
    });
  }

  return (
    <>
      <h1>Event webhooks</h1>
      <p>Endpoints the service calls when something happens in this organization (a reading stored, an alert raised, an execution failed, a FHIR resource changed), signed with Standard Webhooks signatures and delivered through their own queue.</p>
      <form className="destination-form" onSubmit={create} aria-label="New webhook endpoint">
        <label>
          URL
          <input name="url" type="url" value={draft.url} onChange={(e) => setDraft({ ...draft, url: e.target.value })} required maxLength={2048} placeholder="https://example.com/hooks/cdis" />
        </label>
        <label>
          Description <span className="muted">(optional)</span>
          <input name="description" value={draft.description} onChange={(e) => setDraft({ ...draft, description: e.target.value })} maxLength={500} />
        </label>
        <fieldset className="checks">
          <legend>Event types</legend>
          {catalog.error && <ErrorMessage error={catalog.error} />}
          {types.map((t) => (
            <label key={t.type} className="checkbox" title={t.description}>
              <input type="checkbox" name="event_type" value={t.type} checked={chosen.has(t.type)} onChange={() => toggle(t.type)} /> {t.type}
            </label>
          ))}
        </fieldset>
        <label>
          More event types or patterns <span className="muted">(e.g. fhir.Patient.created, fhir.Observation.*, alert.*, *)</span>
          <input name="event_patterns" value={draft.patterns} onChange={(e) => setDraft({ ...draft, patterns: e.target.value })} />
        </label>
        <p>
          <button type="submit" disabled={act.busy || eventTypes.length === 0}>
            Add endpoint
          </button>{" "}
          {eventTypes.length === 0 && <span className="muted">Choose at least one event type.</span>}
        </p>
      </form>
      {created && <SecretOnce what={`The endpoint ${created.url} is registered.`} secret={created.secret} onDone={() => setCreated(undefined)} />}
      {act.failure && <ErrorMessage error={act.failure} />}
      {list.error && <ErrorMessage error={list.error} />}
      {list.loading && !list.data && <Loading what="webhook endpoints" />}
      {list.data?.total_count === 0 && (
        <EmptyState title="No webhook endpoints">
          <p>Register an endpoint above with the events it should hear about.</p>
        </EmptyState>
      )}
      {list.data && list.data.total_count > 0 && (
        <>
          <table className="webhooks">
            <caption className="visually-hidden">Webhook endpoints</caption>
            <TableHead columns={["Endpoint", "Events", "State", "Delivery", "Secret made"]} actions />
            <tbody>
              {list.data.webhook_endpoints.map((w) => {
                const state = endpointState(w);
                const dest = managed.byOwner.get(w.id);
                return (
                  <tr key={w.id} data-webhook-id={w.id} data-webhook-enabled={String(w.enabled)}>
                    <td className="wrap">
                      <Link href={`/webhooks/${w.id}`}>{w.url}</Link>
                      {w.description && <div className="muted">{w.description}</div>}
                    </td>
                    <td className="wrap">{w.event_types.join(", ")}</td>
                    <td>
                      <span className={`badge ${state.badge}`}>{w.enabled ? "enabled" : "disabled"}</span>
                      {w.disabled_reason && <div className="failure-line">{state.words}</div>}
                      {w.failing_since && <div className="failure-line">failing since {when(w.failing_since)}</div>}
                    </td>
                    <td>{dest ? <StatusBadge destination={dest} /> : <span className="muted">{managed.loading ? "…" : "—"}</span>}</td>
                    <td>{when(w.secret_created_at)}</td>
                    <td className="row-actions">
                      <button type="button" disabled={act.busy} onClick={() => setEnabled(w, !w.enabled)}>
                        {w.enabled ? "Disable" : "Enable"}
                        <span className="visually-hidden"> {w.url}</span>
                      </button>
                      <button type="button" disabled={act.busy} onClick={() => remove(w)}>
                        Delete<span className="visually-hidden"> {w.url}</span>
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          <Pager label="Webhook endpoints" offset={offset} total={list.data.total_count} onChange={setOffset} />
        </>
      )}
    </>
  );
}
