// The patient's timeline (newest first, paged), Device reading events included, with a type filter.
import { useState } from "react";
import { PAGE_SIZE, Pager } from "../components/Pager";
import { EmptyState, ErrorMessage, Loading } from "../components/States";
import { withQuery } from "../lib/api";
import { useApi } from "../lib/use-api";

const TYPES = ["Device reading", "Observation", "Encounter", "Condition", "Medication", "Document", "Alert"];

interface TimelineEvent {
  type: string;
  timestamp: string | null;
  resource_type: string;
  resource_id: string;
  title: string;
}

export function Timeline({ patientId }: { patientId: string }) {
  const [type, setType] = useState("");
  const [offset, setOffset] = useState(0);
  const list = useApi<{ events: TimelineEvent[]; total_count: number }>(withQuery(`/api/v1/patients/${encodeURIComponent(patientId)}/timeline`, { type, limit: PAGE_SIZE, offset }));
  return (
    <section aria-label="Timeline">
      <div className="inline-form">
        <label>
          Event type
          <select
            name="event_type"
            value={type}
            onChange={(e) => {
              setType(e.target.value);
              setOffset(0);
            }}
          >
            <option value="">all</option>
            {TYPES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </label>
      </div>
      {list.error && <ErrorMessage error={list.error} />}
      {list.loading && !list.data && <Loading what="the timeline" />}
      {list.data?.total_count === 0 && (
        <EmptyState title="Nothing on the timeline">
          <p>{type ? "No events of this type; choose another type." : "Readings from the patient's devices, encounters, conditions and documents appear here as they arrive."}</p>
        </EmptyState>
      )}
      {list.data && list.data.total_count > 0 && (
        <>
          <ol className="timeline">
            {list.data.events.map((e) => (
              <li key={`${e.resource_type}/${e.resource_id}`} className="timeline-event">
                <time dateTime={e.timestamp ?? undefined}>{e.timestamp ? new Date(e.timestamp).toLocaleString() : "undated"}</time> <span className="badge">{e.type}</span> {e.title}
              </li>
            ))}
          </ol>
          <Pager label="Timeline" offset={offset} total={list.data.total_count} onChange={setOffset} />
        </>
      )}
    </section>
  );
}
