// One node of a run, as the executions detail and the step debugger show it: status, timing,
// attempts, the error, and its inputs, outputs and logs (folded, they can be large). JSON wraps
// rather than scrolls, so no scroll region needs keyboard focus.
import type { NodeRecord } from "./types";

export function Json({ value, label }: { value: unknown; label: string }) {
  return (
    <figure className="json-block">
      <figcaption className="visually-hidden">{label}</figcaption>
      <pre>{value === undefined ? "—" : JSON.stringify(value, null, 2)}</pre>
    </figure>
  );
}

export function NodeRecordView({ id, node }: { id: string; node: NodeRecord }) {
  return (
    <div className="node-record" data-node-id={id} data-node-status={node.status}>
      <p className="node-record-head">
        <strong>{id}</strong> <span className="muted">{node.node_type}</span> <span className={`badge ${node.status}`}>{node.status}</span>
        <span className="muted">
          {" "}
          {node.duration_ms ?? 0} ms{node.attempts ? ` · ${node.attempts} attempt${node.attempts === 1 ? "" : "s"}` : ""}
          {node.started_at ? ` · started ${new Date(node.started_at).toLocaleTimeString()}` : ""}
        </span>
      </p>
      {node.error && (
        <p className="node-error" role="note">
          {node.error.code}: {node.error.message}
        </p>
      )}
      <details>
        <summary>Inputs</summary>
        <Json value={node.inputs} label={`${id} inputs`} />
      </details>
      <details open={node.status === "completed" || node.status === "reused"}>
        <summary>Outputs</summary>
        <Json value={node.outputs} label={`${id} outputs`} />
      </details>
      <details>
        <summary>Logs ({node.logs?.length ?? 0})</summary>
        {node.logs?.length ? (
          <ul className="node-logs">
            {node.logs.map((log, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: logs are append-only and never reordered.
              <li key={i}>
                <span className="muted">{log.at ? new Date(log.at).toLocaleTimeString() : ""}</span> {log.level && <strong>{log.level}</strong>} {log.message ?? JSON.stringify(log)}
              </li>
            ))}
          </ul>
        ) : (
          <p className="muted">No logs.</p>
        )}
      </details>
      {node.would_write && (
        <details>
          <summary>Would write (test mode)</summary>
          <Json value={node.would_write} label={`${id} would write`} />
        </details>
      )}
    </div>
  );
}
