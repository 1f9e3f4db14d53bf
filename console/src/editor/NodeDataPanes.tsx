// The selected node's data as n8n shows it: input | parameters | output, from the pipeline's last
// execution or one the user chooses (GET /api/executions?pipeline_id=…, /api/executions/{id}),
// so a node's configuration is read beside what it received and what it made.
import { Json } from "../executions/NodeRecordView";
import type { ExecutionDetail, ExecutionSummary } from "../executions/types";
import { ErrorMessage } from "../components/States";
import { useState } from "react";
import { ApiFailure, api } from "../lib/api";
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
  run,
}: {
  spec: DefinitionNode;
  executions: ExecutionSummary[];
  chosen: string | undefined;
  detail: Loaded<ExecutionDetail>;
  onChoose(id: string): void;
  /** Set when the user may run: "run from here" re-runs this node and what follows it. */
  run?: {
    /** The input pinned to this node (JSON text, by port), saved with the pipeline as its pinned_input. */
    pinned: string | undefined;
    onPin(text: string | undefined): void;
    onRan(result: { execution_id: string; node_results?: Record<string, unknown> }): void;
  };
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
          <h3>Input{run?.pinned !== undefined && <span className="badge pinned"> pinned</span>}</h3>
          {run?.pinned !== undefined ? (
            <PinnedInput nodeId={spec.id} text={run.pinned} onChange={run.onPin} />
          ) : (
            <Json value={record?.inputs} label={`${spec.id} input`} />
          )}
          {run && <RunFromHere nodeId={spec.id} executionId={chosen} recorded={record?.inputs} pinned={run.pinned} onPin={run.onPin} onRan={run.onRan} />}
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

function PinnedInput({ nodeId, text, onChange }: { nodeId: string; text: string; onChange(text: string | undefined): void }) {
  return (
    <label>
      Pinned input of {nodeId} (JSON, by port)
      <textarea className="pinned-input" rows={6} value={text} onChange={(e) => onChange(e.target.value)} spellCheck={false} />
    </label>
  );
}

/**
 * Re-runs the node and everything downstream through the retry API (POST /api/execute/retry): the
 * chosen execution's upstream outputs are reused, the node gets the pinned input when one is set
 * (its recorded input otherwise), and the version is the one that execution ran.
 */
function RunFromHere({
  nodeId,
  executionId,
  recorded,
  pinned,
  onPin,
  onRan,
}: {
  nodeId: string;
  executionId: string | undefined;
  recorded: unknown;
  pinned: string | undefined;
  onPin(text: string | undefined): void;
  onRan(result: { execution_id: string; node_results?: Record<string, unknown> }): void;
}) {
  const [failure, setFailure] = useState<string>();
  const [busy, setBusy] = useState(false);
  async function runFromHere() {
    if (!executionId) return;
    setFailure(undefined);
    let inputs: Record<string, unknown> | undefined;
    if (pinned !== undefined) {
      try {
        inputs = JSON.parse(pinned) as Record<string, unknown>;
      } catch {
        setFailure("The pinned input is not JSON.");
        return;
      }
      if (!inputs || typeof inputs !== "object" || Array.isArray(inputs)) {
        setFailure("The pinned input is an object of input port values, e.g. {\"input\": …}.");
        return;
      }
    }
    setBusy(true);
    try {
      onRan(await api("/api/execute/retry", { method: "POST", body: { execution_id: executionId, node_id: nodeId, ...(inputs ? { inputs } : {}) } }));
    } catch (e) {
      if (e instanceof ApiFailure) setFailure(e.message);
      else throw e;
    } finally {
      setBusy(false);
    }
  }
  return (
    <div className="run-from-here">
      {pinned === undefined ? (
        <button type="button" disabled={recorded === undefined} onClick={() => onPin(JSON.stringify(recorded ?? {}, null, 2))}>
          Pin this input
        </button>
      ) : (
        <button type="button" onClick={() => onPin(undefined)}>
          Unpin
        </button>
      )}
      <button type="button" disabled={!executionId || busy} onClick={() => void runFromHere()}>
        Run from here
      </button>
      {failure && (
        <p className="node-error" role="alert">
          {failure}
        </p>
      )}
    </div>
  );
}
