// The selected node's data as n8n shows it: input | parameters | output, from the pipeline's last
// execution or one the user chooses (GET /api/executions?pipeline_id=…, /api/executions/{id}),
// so a node's configuration is read beside what it received and what it made.
import { Json } from "../executions/NodeRecordView";
import type { ExecutionDetail, ExecutionSummary } from "../executions/types";
import { ErrorMessage } from "../components/States";
import type { Loaded } from "../lib/use-api";
import type { DefinitionNode } from "./definition";

export function ExecutionPicker({ executions, chosen, onChoose }: { executions: ExecutionSummary[]; chosen: string | undefined; onChoose(id: string): void }) {
  return (
    <label className="inline">
      Data from
      <select value={chosen ?? ""} onChange={(e) => onChoose(e.target.value)}>
        {executions.map((x, i) => (
          <option key={x.execution_id} value={x.execution_id}>
            {i === 0 ? "the last execution" : new Date(x.started_at).toLocaleString()} · {x.status}
            {x.test_mode ? " · test" : ""} · v{x.pipeline_version}
            {x.retry_from_node ? ` · from ${x.retry_from_node}` : ""}
          </option>
        ))}
      </select>
    </label>
  );
}

export function NodeDataPanes({
  spec,
  executions,
  chosen,
  detail,
  onChoose,
}: {
  spec: DefinitionNode;
  executions: ExecutionSummary[];
  chosen: string | undefined;
  detail: Loaded<ExecutionDetail>;
  onChoose(id: string): void;
}) {
  const record = chosen && detail.data?.execution_id === chosen ? detail.data.nodes[spec.id] : undefined;
  const none = !chosen ? "No execution yet: run the pipeline to see its data here." : detail.data && !record ? "This node did not run in that execution." : undefined;
  return (
    <section className="node-data" aria-label={`Data of ${spec.id}`}>
      <div className="node-data-head">
        <h2>
          {spec.id} <span className="muted">data</span>
        </h2>
        {executions.length > 0 && <ExecutionPicker executions={executions} chosen={chosen} onChoose={onChoose} />}
        {record && (
          <span className={`badge ${record.status}`} data-pane-status={record.status}>
            {record.status}
          </span>
        )}
      </div>
      {detail.error && <ErrorMessage error={detail.error} />}
      {none && <p className="muted">{none}</p>}
      <div className="node-data-panes">
        <div className="node-data-pane" data-pane="input">
          <h3>Input</h3>
          <Json value={record?.inputs} label={`${spec.id} input`} />
        </div>
        <div className="node-data-pane" data-pane="parameters">
          <h3>Parameters</h3>
          <Json value={spec.config} label={`${spec.id} parameters`} />
        </div>
        <div className="node-data-pane" data-pane="output">
          <h3>Output</h3>
          {record?.error && (
            <p className="node-error" role="note">
              {record.error.code}: {record.error.message}
            </p>
          )}
          <Json value={record?.outputs} label={`${spec.id} output`} />
        </div>
      </div>
    </section>
  );
}
