// One execution: its summary, the run's inputs and outputs, and per node its inputs, outputs, logs,
// timing and error; a running (async) execution refreshes until it settles. Retry from any node.
import { useEffect, useState } from "react";
import { Link } from "wouter";
import { ErrorMessage, Loading } from "../components/States";
import { Json, NodeRecordView } from "../executions/NodeRecordView";
import { RetryForm } from "../executions/RetryForm";
import type { ExecutionDetail as Detail } from "../executions/types";
import { useSession } from "../lib/session";
import { useApi } from "../lib/use-api";

const POLL_MS = 1000;

export function ExecutionDetail({ id }: { id: string }) {
  const { can } = useSession();
  const { data, error, loading, reload } = useApi<Detail>(`/api/executions/${encodeURIComponent(id)}`);
  // Keyed by execution, so the form closes when a retry opens the new execution on the same page.
  const [retrying, setRetrying] = useState<{ execution: string; node: string }>();
  const retryNode = retrying?.execution === id ? retrying.node : undefined;
  const setRetryNode = (node: string | undefined) => setRetrying(node ? { execution: id, node } : undefined);
  const settled = data && data.status !== "running" && data.status !== "waiting";

  useEffect(() => {
    if (!data || settled) return;
    const timer = setTimeout(reload, POLL_MS);
    return () => clearTimeout(timer);
  }, [data, settled, reload]);

  if (error) return <ErrorMessage error={error} />;
  if (loading && !data) return <Loading what="the execution" />;
  if (!data) return null;
  return (
    <>
      <p>
        <Link href="/executions">← Executions</Link>
      </p>
      <h1>
        Execution <code>{data.execution_id.slice(0, 8)}</code> <span className={`badge ${data.status}`} data-execution-status={data.status}>{data.status}</span>
      </h1>
      <dl className="facts">
        <dt>Pipeline</dt>
        <dd>
          <Link href={`/pipelines/${data.pipeline_id}`}>{data.pipeline_id}</Link> version {data.pipeline_version}
          {data.test_mode && " (test mode)"}
        </dd>
        <dt>Trigger</dt>
        <dd>
          {data.trigger} ({data.mode})
        </dd>
        <dt>Started</dt>
        <dd>{new Date(data.started_at).toLocaleString()}</dd>
        <dt>Duration</dt>
        <dd>{data.duration_ms === null ? (settled ? "—" : "running…") : `${data.duration_ms} ms`}</dd>
        {data.retry_of && (
          <>
            <dt>Retry of</dt>
            <dd>
              <Link href={`/executions/${data.retry_of}`}>{data.retry_of.slice(0, 8)}</Link> from node {data.retry_from_node}
            </dd>
          </>
        )}
      </dl>
      {data.error && (
        <div className="error" role="alert">
          <strong>Failed at {data.error.node_id ?? "the pipeline"}</strong>
          <p>
            {data.error.code}: {data.error.message}
          </p>
        </div>
      )}
      <details>
        <summary>Run inputs</summary>
        <Json value={data.inputs} label="Run inputs" />
      </details>
      <details open={data.status === "completed"}>
        <summary>Run outputs</summary>
        <Json value={data.outputs} label="Run outputs" />
      </details>
      <h2>Nodes</h2>
      {Object.keys(data.nodes).length === 0 && <p className="muted">No node has run yet.</p>}
      {Object.entries(data.nodes).map(([nodeId, node]) => (
        <div key={nodeId} className="node-row">
          <NodeRecordView id={nodeId} node={node} />
          {settled && can("pipelines:execute") && retryNode !== nodeId && (
            <button type="button" data-retry-node={nodeId} onClick={() => setRetryNode(nodeId)}>
              Retry from {nodeId}
            </button>
          )}
          {retryNode === nodeId && <RetryForm executionId={data.execution_id} nodeId={nodeId} node={node} onCancel={() => setRetryNode(undefined)} />}
        </div>
      ))}
    </>
  );
}
