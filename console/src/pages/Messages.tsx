// Inbound messages (HL7 v2 and every other inbound protocol), newest first, filtered by sender
// (chosen from the senders seen), message type and status, searched by MRN, control id, any field
// path or text (server side), a page at a time. Every filter lives in the address, so back,
// forward and reload keep it. A selection of messages is reprocessed in one go, each one's outcome
// said beside it.
import { useEffect, useState } from "react";
import { Link, useLocation, useSearch } from "wouter";
import { Pager, PAGE_SIZE } from "../components/Pager";
import { EmptyState, ErrorMessage, Loading } from "../components/States";
import { ApiFailure, api, withQuery } from "../lib/api";
import { useSession } from "../lib/session";
import { useApi } from "../lib/use-api";
import { MESSAGE_STATUSES, type MessageSummary } from "../messages/types";

/** The address's filters; the list API takes them as they are. */
const FILTERS = ["sender", "message_type", "status", "control_id", "field", "value", "text", "offset"] as const;
type Filters = Partial<Record<(typeof FILTERS)[number], string>>;

const SEARCH_KINDS = {
  mrn: "MRN (PID-3)",
  control_id: "Control id (MSH-10)",
  field: "Field path",
  text: "Text",
} as const;
type SearchKind = keyof typeof SEARCH_KINDS;

const MRN_PATH = "PID-3";
const REPROCESSABLE = new Set(["processed", "unrouted", "failed"]);

function kindOf(f: Filters): SearchKind {
  if (f.control_id) return "control_id";
  if (f.text) return "text";
  if (f.field && f.field !== MRN_PATH) return "field";
  return "mrn";
}

function searchOf(kind: SearchKind, path: string, value: string): Filters {
  const v = value.trim();
  if (!v) return {};
  if (kind === "mrn") return { field: MRN_PATH, value: v };
  if (kind === "control_id") return { control_id: v };
  if (kind === "text") return { text: v };
  return { field: path.trim(), value: v };
}

type Outcome = { ok: true } | { ok: false; message: string };

export function Messages() {
  const search = useSearch();
  const [, navigate] = useLocation();
  const params = new URLSearchParams(search);
  const filters: Filters = Object.fromEntries(FILTERS.flatMap((k) => (params.get(k) ? [[k, params.get(k) as string]] : [])));
  const offset = Number(filters.offset ?? 0) || 0;
  const go = (next: Filters) => navigate(withQuery("/messages", next));
  const filter = (key: keyof Filters) => (v: string) => go({ ...filters, [key]: v, offset: undefined });

  const { data, error, loading, reload } = useApi<{ messages: MessageSummary[]; total_count: number }>(withQuery("/api/hl7/messages", { limit: PAGE_SIZE, ...filters, offset }));
  const senders = useApi<{ senders: { protocol: string; sender: string; count: number }[] }>("/api/hl7/messages/senders");
  const filtered = Object.keys(filters).some((k) => k !== "offset");
  // Kept here, not in the table: reprocessed messages may leave the filtered list when it reloads.
  const [outcomes, setOutcomes] = useState<{ id: string; label: string; outcome: Outcome }[]>([]);
  return (
    <>
      <h1>Messages</h1>
      <p>
        <Link href="/channels">Channels dashboard</Link>
      </p>
      <form
        className="inline-form"
        aria-label="Filter messages"
        onSubmit={(e) => {
          // The type is applied on Enter (its one text field submits the form), not at each keystroke.
          e.preventDefault();
          filter("message_type")(String(new FormData(e.currentTarget).get("message_type") ?? "").trim());
        }}
      >
        <label>
          Sender
          <select name="sender" value={filters.sender ?? ""} onChange={(e) => filter("sender")(e.target.value)}>
            <option value="">Any sender</option>
            {/* A sender in the address but not (yet) seen stays choosable, so the filter shows as applied. */}
            {filters.sender && !senders.data?.senders.some((s) => s.sender === filters.sender) && <option value={filters.sender}>{filters.sender}</option>}
            {senders.data?.senders.map((s) => (
              <option key={`${s.protocol} ${s.sender}`} value={s.sender}>
                {s.sender} ({s.protocol}, {s.count})
              </option>
            ))}
          </select>
        </label>
        <label>
          Message type
          <input name="message_type" key={filters.message_type ?? ""} defaultValue={filters.message_type ?? ""} placeholder="ADT" />
        </label>
        <label>
          Status
          <select name="status" value={filters.status ?? ""} onChange={(e) => filter("status")(e.target.value)}>
            <option value="">Any status</option>
            {MESSAGE_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
      </form>
      <SearchForm search={search} filters={filters} onSearch={(s) => go({ sender: filters.sender, message_type: filters.message_type, status: filters.status, ...s })} />
      {error && <ErrorMessage error={error} />}
      {loading && !data && <Loading what="messages" />}
      {data && data.total_count === 0 && (
        <EmptyState title={filtered ? "No messages match these filters" : "No messages received yet"}>
          {filtered ? (
            <p>Widen the filters above. A field path is a segment and field, optionally a component: PID-3, PID-5.1, OBX-3.1.</p>
          ) : (
            <p>Messages arrive from the on-premises bridge (MLLP) or through POST /api/v1/hl7/messages. Deploy a pipeline with an HL7 trigger to turn them into FHIR resources.</p>
          )}
        </EmptyState>
      )}
      {outcomes.length > 0 && (
        <div role="status" className="reprocess-outcomes">
          <p>
            {outcomes.filter((o) => o.outcome.ok).length} queued again, {outcomes.filter((o) => !o.outcome.ok).length} refused.
          </p>
          <ul>
            {outcomes.map((o) => (
              <li key={o.id} data-outcome-of={o.id} data-outcome={o.outcome.ok ? "queued" : "refused"}>
                <Link href={`/messages/${o.id}`}>{o.label}</Link>: {o.outcome.ok ? "queued again" : `refused: ${o.outcome.message}`}
              </li>
            ))}
          </ul>
        </div>
      )}
      {data && data.total_count > 0 && (
        <MessageTable
          key={search}
          messages={data.messages}
          onReprocessed={(results) => {
            setOutcomes(results);
            reload();
          }}
        />
      )}
      {data && data.total_count > 0 && <Pager label="Messages" offset={offset} total={data.total_count} onChange={(o) => go({ ...filters, offset: o ? String(o) : undefined })} />}
    </>
  );
}

function SearchForm({ search, filters, onSearch }: { search: string; filters: Filters; onSearch(search: Filters): void }) {
  const [kind, setKind] = useState<SearchKind>(kindOf(filters));
  const [path, setPath] = useState("");
  const [value, setValue] = useState("");
  // The fields follow the address, so back and forward show the search they went to.
  // biome-ignore lint/correctness/useExhaustiveDependencies: filters are derived from search.
  useEffect(() => {
    setKind(kindOf(filters));
    setPath(filters.field && filters.field !== MRN_PATH ? filters.field : "");
    setValue(filters.value ?? filters.control_id ?? filters.text ?? "");
  }, [search]);
  return (
    <form
      className="inline-form"
      aria-label="Search message content"
      onSubmit={(e) => {
        e.preventDefault();
        onSearch(searchOf(kind, path, value));
      }}
    >
      <label>
        Search by
        <select name="search_kind" value={kind} onChange={(e) => setKind(e.target.value as SearchKind)}>
          {Object.entries(SEARCH_KINDS).map(([k, label]) => (
            <option key={k} value={k}>
              {label}
            </option>
          ))}
        </select>
      </label>
      {kind === "field" && (
        <label>
          Field path
          <input name="field" value={path} onChange={(e) => setPath(e.target.value)} placeholder="PID-5.1" required />
        </label>
      )}
      <label>
        {kind === "field" ? "Value" : "Search for"}
        <input name="search" type="search" value={value} onChange={(e) => setValue(e.target.value)} />
      </label>
      <button type="submit">Search</button>
    </form>
  );
}

type Reprocessed = { id: string; label: string; outcome: Outcome }[];

function MessageTable({ messages, onReprocessed }: { messages: MessageSummary[]; onReprocessed(results: Reprocessed): void }) {
  const { can } = useSession();
  const manage = can("messages:manage");
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [busy, setBusy] = useState(false);
  const toggle = (id: string) =>
    setSelected((s) => {
      const next = new Set(s);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  const selectable = messages.filter((m) => REPROCESSABLE.has(m.status));
  const allSelected = selectable.length > 0 && selectable.every((m) => selected.has(m.id));

  async function reprocessSelected() {
    const chosen = messages.filter((m) => selected.has(m.id));
    if (!chosen.length || !window.confirm(`Reprocess ${chosen.length} message${chosen.length === 1 ? "" : "s"}? Each goes to the head of its sender's queue and runs through the deployed pipelines again.`)) return;
    setBusy(true);
    // One call per message, so each says its own outcome (a message may be refused while others pass).
    const results = await Promise.all(
      chosen.map(async (m): Promise<Reprocessed[number]> => {
        const label = `${m.control_id ?? m.id} (${m.sender ?? m.protocol})`;
        try {
          await api(`/api/hl7/messages/${encodeURIComponent(m.id)}/reprocess`, { method: "POST" });
          return { id: m.id, label, outcome: { ok: true } };
        } catch (e) {
          return { id: m.id, label, outcome: { ok: false, message: e instanceof ApiFailure ? e.message : String(e) } };
        }
      }),
    );
    setSelected(new Set());
    setBusy(false);
    onReprocessed(results);
  }

  return (
    <>
      {manage && (
        <p className="inline-form">
          <button type="button" disabled={busy || selected.size === 0} onClick={() => void reprocessSelected()}>
            Reprocess selected ({selected.size})
          </button>
        </p>
      )}
      <table>
        <caption className="visually-hidden">Messages</caption>
        <thead>
          <tr>
            {manage && (
              <th scope="col">
                <input
                  type="checkbox"
                  aria-label="Select every reprocessable message on this page"
                  checked={allSelected}
                  disabled={selectable.length === 0}
                  onChange={() => setSelected(allSelected ? new Set() : new Set(selectable.map((m) => m.id)))}
                />
              </th>
            )}
            <th scope="col">Received</th>
            <th scope="col">Sender</th>
            <th scope="col">Type</th>
            <th scope="col">Control id</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
          </tr>
        </thead>
        <tbody>
          {messages.map((m) => {
            return (
              <tr key={m.id} data-message-id={m.id}>
                {manage && (
                  <td>
                    <input type="checkbox" aria-label={`Select message ${m.control_id ?? m.id}`} checked={selected.has(m.id)} disabled={!REPROCESSABLE.has(m.status)} onChange={() => toggle(m.id)} />
                  </td>
                )}
                <td>
                  <Link href={`/messages/${m.id}`}>{new Date(m.received_at).toLocaleString()}</Link>
                </td>
                <td>{m.sender ?? "—"}</td>
                <td>
                  {m.message_type ? `${m.message_type}${m.trigger_event ? `^${m.trigger_event}` : ""}` : "—"} <span className="muted">{m.protocol}</span>
                </td>
                <td>{m.control_id ?? "—"}</td>
                <td>
                  <span className={`badge ${m.status}`}>{m.status}</span>
                </td>
                <td>{m.attempts}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}
