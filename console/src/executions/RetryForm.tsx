// Retry from a node: a new execution linked to this one that reuses the earlier nodes' outputs and
// runs the chosen node and everything after it again, optionally with corrected inputs for it.
import { useState } from "react";
import { useLocation } from "wouter";
import { ErrorMessage } from "../components/States";
import { ApiFailure, api } from "../lib/api";
import type { NodeRecord } from "./types";

export function RetryForm({ executionId, nodeId, node, onCancel }: { executionId: string; nodeId: string; node: NodeRecord; onCancel(): void }) {
  const [, navigate] = useLocation();
  const [inputs, setInputs] = useState(JSON.stringify(node.inputs ?? {}, null, 2));
  const [error, setError] = useState<ApiFailure>();
  const [busy, setBusy] = useState(false);

  async function retry() {
    let parsed: unknown;
    try {
      parsed = JSON.parse(inputs);
    } catch (e) {
      setError(new ApiFailure(0, "INVALID_JSON", `The inputs are not JSON: ${(e as Error).message}`));
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      const result = await api<{ execution_id: string }>("/api/execute/retry", { method: "POST", body: { execution_id: executionId, node_id: nodeId, inputs: parsed } });
      navigate(`/executions/${result.execution_id}`);
    } catch (e) {
      setError(e instanceof ApiFailure ? e : new ApiFailure(0, "CLIENT", String(e)));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="retry-form" aria-label={`Retry from ${nodeId}`}>
      <h3>Retry from {nodeId}</h3>
      <p className="muted">Earlier nodes' outputs are reused; {nodeId} and everything after it run again. Edit its inputs (by port) to correct the data it failed on.</p>
      <label>
        Inputs of {nodeId}
        <textarea className="retry-inputs" rows={8} value={inputs} onChange={(e) => setInputs(e.target.value)} spellCheck={false} />
      </label>
      {error && <ErrorMessage error={error} />}
      <p>
        <button type="button" disabled={busy} onClick={() => void retry()}>
          Retry
        </button>{" "}
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </p>
    </section>
  );
}
