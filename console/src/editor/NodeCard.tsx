// One node on the canvas: its name and type, a handle per input (left) and output (right) port
// labelled with the port's type, the validator's errors and the last run's status.
import { Handle, type NodeProps, Position } from "@xyflow/react";
import type { CanvasNode } from "./definition";

export function NodeCard({ data, selected }: NodeProps<CanvasNode>) {
  const { spec, type, errors, run } = data;
  const state = errors.length ? "invalid" : (run?.status ?? "idle");
  return (
    <div className={`node-card ${state}${selected ? " selected" : ""}`} data-node-id={spec.id}>
      <div className="node-title">{spec.name ?? type?.name ?? spec.type}</div>
      <div className="node-meta">
        {spec.id} · {spec.type}
      </div>
      <div className="node-ports">
        <ul className="ports in">
          {(type?.inputs ?? []).map((p) => (
            <li key={p.name}>
              <Handle type="target" position={Position.Left} id={p.name} className="port-handle" role="button" aria-label={`${spec.id} input ${p.name} (${p.type})`} />
              {p.name} <span className="port-type">{p.type}</span>
            </li>
          ))}
        </ul>
        <ul className="ports out">
          {(type?.outputs ?? []).map((p) => (
            <li key={p.name}>
              {p.name} <span className="port-type">{p.type}</span>
              <Handle type="source" position={Position.Right} id={p.name} className="port-handle" role="button" aria-label={`${spec.id} output ${p.name} (${p.type})`} />
            </li>
          ))}
        </ul>
      </div>
      {run && (
        <div className={`node-run ${run.status}`} data-run-status={run.status}>
          {run.status} · {run.duration_ms} ms{run.error ? ` · ${run.error.code}: ${run.error.message}` : ""}
        </div>
      )}
      {errors.map((e) => (
        <div key={e} className="node-error">
          {e}
        </div>
      ))}
    </div>
  );
}
