// Executions: the run history, newest first, filtered by pipeline, status and start time, a page
// at a time; each row opens the execution's detail.
import { useState } from "react";
import { Link } from "wouter";
import { Pager, PAGE_SIZE } from "../components/Pager";
import { EmptyState, ErrorMessage, Loading } from "../components/States";
import { EXECUTION_STATUSES, type ExecutionSummary } from "../executions/types";
import { withQuery } from "../lib/api";
import { useSession } from "../lib/session";
import { useApi } from "../lib/use-api";
import type { PipelineSummary } from "./Pipelines";

/** A `datetime-local` value (the browser's time zone) as the API's UTC instant. */
const utc = (local: string) => (local ? new Date(local).toISOString() : undefined);

export function Executions() {
  const { can } = useSession();
  const [offset, setOffset] = useState(0);
  const [pipeline, setPipeline] = useState(new URLSearchParams(location.search).get("pipeline_id") ?? "");
  const [status, setStatus] = useState("");
  const [since, setSince] = useState("");
  const [until, setUntil] = useState("");
  const pipelines = useApi<{ pipelines: PipelineSummary[]; total_count: number }>(withQuery("/api/pipelines", { limit: 100 }));
  const names = new Map((pipelines.data?.pipelines ?? []).map((p) => [p.id, p.name]));
  const { data, error, loading } = useApi<{ executions: ExecutionSummary[]; total_count: number }>(
    withQuery("/api/executions", { limit: PAGE_SIZE, offset, pipeline_id: pipeline, status, since: utc(since), until: utc(until) }),
  );
  const filtered = pipeline || status || since || until;
  const filter = (set: (v: string) => void) => (v: string) => {
    set(v);
    setOffset(0);
  };

  return (
    <>
      <h1>Executions</h1>
      {can("pipelines:execute") && (
        <p>
          <Link href="/executions/debug" className="button-link">
            Step-by-step debugger
          </Link>
        </p>
      )}
      <form className="inline-form" aria-label="Filter executions" onSubmit={(e) => e.preventDefault()}>
        <label>
          Pipeline
          <select name="pipeline" value={pipeline} onChange={(e) => filter(setPipeline)(e.target.value)}>
            <option value="">All pipelines</option>
            {pipelines.data?.pipelines.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Status
          <select name="status" value={status} onChange={(e) => filter(setStatus)(e.target.value)}>
            <option value="">Any status</option>
            {EXECUTION_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Started from
          <input type="datetime-local" name="since" value={since} onChange={(e) => filter(setSince)(e.target.value)} />
        </label>
        <label>
          Started until
          <input type="datetime-local" name="until" value={until} onChange={(e) => filter(setUntil)(e.target.value)} />
        </label>
      </form>
      {error && <ErrorMessage error={error} />}
      {loading && !data && <Loading what="executions" />}
      {data && data.total_count === 0 && (
        <EmptyState title={filtered ? "No executions match these filters" : "No executions yet"}>
          {filtered ? (
            <p>Widen the filters above: another status, pipeline or time range.</p>
          ) : (
            <p>
              A pipeline runs when its trigger fires (an inbound message, a webhook, a schedule) or when you run it. Open a pipeline in the <Link href="/pipelines">editor</Link> and press Run, or
              POST /api/execute.
            </p>
          )}
        </EmptyState>
      )}
      {data && data.total_count > 0 && (
        <>
          <table>
            <caption className="visually-hidden">Executions</caption>
            <thead>
              <tr>
                <th scope="col">Execution</th>
                <th scope="col">Pipeline</th>
                <th scope="col">Status</th>
                <th scope="col">Trigger</th>
                <th scope="col">Started</th>
                <th scope="col">Duration</th>
                <th scope="col">Error</th>
              </tr>
            </thead>
            <tbody>
              {data.executions.map((x) => (
                <tr key={x.execution_id} data-execution-id={x.execution_id}>
                  <td>
                    <Link href={`/executions/${x.execution_id}`}>
                      <code>{x.execution_id.slice(0, 8)}</code>
                    </Link>
                    {x.test_mode && <span className="badge"> test</span>}
                    {x.retry_of && <span className="muted"> retry from {x.retry_from_node}</span>}
                  </td>
                  <td>
                    {names.get(x.pipeline_id) ?? <code>{x.pipeline_id.slice(0, 8)}</code>} <span className="muted">v{x.pipeline_version}</span>
                  </td>
                  <td>
                    <span className={`badge ${x.status}`}>{x.status}</span>
                  </td>
                  <td>
                    {x.trigger} <span className="muted">({x.mode})</span>
                  </td>
                  <td>{new Date(x.started_at).toLocaleString()}</td>
                  <td>{x.duration_ms === null ? "—" : `${x.duration_ms} ms`}</td>
                  <td>{x.error ? `${x.error.node_id ?? ""} ${x.error.code}` : ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager label="Executions" offset={offset} total={data.total_count} onChange={setOffset} />
        </>
      )}
    </>
  );
}
