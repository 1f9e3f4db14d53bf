// Settings → Audit log: the organization's AuditEvents, newest first, paged, filtered by actor,
// action, entity type, outcome and time.
import { type FormEvent, useState } from "react";
import { PAGE_SIZE, Pager } from "../components/Pager";
import { EmptyState, ErrorMessage, Loading } from "../components/States";
import { withQuery } from "../lib/api";
import { useApi } from "../lib/use-api";
import { TableHead } from "../components/TableHead";

interface AuditEvent {
  id: string;
  recorded: string;
  action?: string;
  outcome?: string;
  outcomeDesc?: string;
  type?: { code?: string; display?: string };
  subtype?: { code?: string; display?: string }[];
  agent?: { who?: { display?: string; identifier?: { value?: string } } }[];
  entity?: { what?: { reference?: string }; type?: { code?: string } }[];
}

const EMPTY = { actor: "", action: "", entity_type: "", outcome: "", since: "", until: "" };
const iso = (local: string) => (local ? new Date(local).toISOString() : "");

export function AuditLog() {
  const [form, setForm] = useState(EMPTY);
  const [filters, setFilters] = useState(EMPTY);
  const [offset, setOffset] = useState(0);
  const log = useApi<{ audit_events: AuditEvent[]; total_count: number }>(withQuery("/api/audit", { ...filters, since: iso(filters.since), until: iso(filters.until), limit: PAGE_SIZE, offset }));

  function apply(e: FormEvent) {
    e.preventDefault();
    setFilters(form);
    setOffset(0);
  }
  const field = (name: keyof typeof EMPTY, label: string, type = "text") => (
    <label>
      {label}
      <input name={name} type={type} value={form[name]} onChange={(e) => setForm({ ...form, [name]: e.target.value })} />
    </label>
  );

  return (
    <>
      <h1>Audit log</h1>
      <form className="inline-form" onSubmit={apply} aria-label="Filter the audit log">
        {field("actor", "Actor")}
        {field("action", "Action")}
        {field("entity_type", "Entity type")}
        <label>
          Outcome
          <select name="outcome" value={form.outcome} onChange={(e) => setForm({ ...form, outcome: e.target.value })}>
            <option value="">any</option>
            <option value="success">success</option>
            <option value="failure">failure</option>
          </select>
        </label>
        {field("since", "Since", "datetime-local")}
        {field("until", "Until", "datetime-local")}
        <button type="submit">Filter</button>
      </form>
      {log.error && <ErrorMessage error={log.error} />}
      {log.loading && !log.data && <Loading what="the audit log" />}
      {log.data?.total_count === 0 && (
        <EmptyState title="No audit events match">
          <p>Clear or widen the filters; every read and change through the API is recorded here.</p>
        </EmptyState>
      )}
      {log.data && log.data.total_count > 0 && (
        <>
          <table>
            <caption className="visually-hidden">Audit events</caption>
            <TableHead columns={["When", "Actor", "Event", "Action", "Entity", "Outcome"]} />
            <tbody>
              {log.data.audit_events.map((a) => (
                <tr key={a.id}>
                  <td>{new Date(a.recorded).toLocaleString()}</td>
                  <td>{a.agent?.[0]?.who?.display ?? a.agent?.[0]?.who?.identifier?.value ?? "—"}</td>
                  <td>{a.subtype?.at(-1)?.code ?? a.type?.display ?? a.type?.code ?? "—"}</td>
                  <td>{a.action ?? "—"}</td>
                  <td>
                    <code>{a.entity?.[0]?.what?.reference ?? "—"}</code>
                  </td>
                  <td>{a.outcome === "0" ? "success" : (a.outcomeDesc ?? `failure (${a.outcome})`)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager label="Audit events" offset={offset} total={log.data.total_count} onChange={setOffset} />
        </>
      )}
    </>
  );
}
