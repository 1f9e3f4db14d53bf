// The step-by-step debugger: open a step session for a pipeline with inputs, then advance one node
// at a time, reading each node's inputs, outputs, logs and error, and optionally supplying the
// current node's outputs (by port) instead of running it.
import { useState } from "react";
import { ErrorMessage } from "../components/States";
import { Json, NodeRecordView } from "../executions/NodeRecordView";
import type { StepView } from "../executions/types";
import { ApiFailure, api, withQuery } from "../lib/api";
import { useApi } from "../lib/use-api";
import type { PipelineSummary } from "./Pipelines";

type Step = NonNullable<StepView["step"]>;

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ApiFailure(0, "INVALID_JSON", `${what} is not JSON: ${(e as Error).message}`);
  }
}

export function StepDebugger() {
  const pipelines = useApi<{ pipelines: PipelineSummary[] }>(withQuery("/api/pipelines", { limit: 100 }));
  const [pipeline, setPipeline] = useState(new URLSearchParams(location.search).get("pipeline_id") ?? "");
  const [inputs, setInputs] = useState("{}");
  const [testMode, setTestMode] = useState(true);
  const [session, setSession] = useState<StepView>();
  const [steps, setSteps] = useState<Step[]>([]);
  const [override, setOverride] = useState("");
  const [error, setError] = useState<ApiFailure>();
  const [busy, setBusy] = useState(false);

  async function call(work: () => Promise<void>) {
    setBusy(true);
    setError(undefined);
    try {
      await work();
    } catch (e) {
      setError(e instanceof ApiFailure ? e : new ApiFailure(0, "CLIENT", String(e)));
    } finally {
      setBusy(false);
    }
  }

  const start = () =>
    call(async () => {
      const body = { pipeline_id: pipeline, inputs: parseJson(inputs, "The inputs"), test_mode: testMode };
      const opened = await api<StepView>("/api/execute/step", { method: "POST", body });
      setSession(opened);
      setSteps([]);
      setOverride("");
    });

  const advance = (supplied: boolean) =>
    call(async () => {
      if (!session) return;
      const body = supplied ? { node_outputs: parseJson(override, "The outputs") } : {};
      const next = await api<StepView>(`/api/execute/step/${encodeURIComponent(session.session_id)}`, { method: "POST", body });
      setSession(next);
      const taken = next.step;
      if (taken) setSteps((s) => [...s, taken]);
      setOverride("");
    });

  const names = pipelines.data?.pipelines ?? [];
  return (
    <>
      <h1>Step-by-step debugger</h1>
      <p className="muted">Runs a pipeline's latest version one node at a time. Test mode writes nothing to the FHIR store or external systems.</p>
      <form
        className="debug-start"
        aria-label="Start a step session"
        onSubmit={(e) => {
          e.preventDefault();
          void start();
        }}
      >
        <label>
          Pipeline
          <select name="pipeline" value={pipeline} onChange={(e) => setPipeline(e.target.value)} required>
            <option value="">Choose a pipeline</option>
            {names.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name} (v{p.version})
              </option>
            ))}
          </select>
        </label>
        <label>
          Inputs (JSON)
          <textarea className="debug-inputs" rows={4} value={inputs} onChange={(e) => setInputs(e.target.value)} spellCheck={false} />
        </label>
        <label className="checkbox">
          <input type="checkbox" checked={testMode} onChange={(e) => setTestMode(e.target.checked)} /> Test mode
        </label>
        <button type="submit" disabled={busy || !pipeline}>
          {session ? "Restart" : "Start step mode"}
        </button>
      </form>
      {pipelines.data && names.length === 0 && <p className="muted">No pipelines yet: create one under Pipelines first.</p>}
      {error && <ErrorMessage error={error} />}
      {session && (
        <section className="debug-session" aria-label="Step session" data-session-status={session.status}>
          <h2>
            Session <span className={`badge ${session.status}`}>{session.status}</span>
          </h2>
          {session.current_node ? (
            <div className="debug-current">
              <p>
                Next node: <strong data-current-node={session.current_node}>{session.current_node}</strong>
              </p>
              <button type="button" disabled={busy} onClick={() => void advance(false)}>
                Run {session.current_node} and advance
              </button>
              <label>
                Or supply {session.current_node}'s outputs by port (JSON), instead of running it
                <textarea className="debug-override" rows={4} value={override} onChange={(e) => setOverride(e.target.value)} placeholder='{"output": …}' spellCheck={false} />
              </label>
              <button type="button" disabled={busy || !override.trim()} onClick={() => void advance(true)}>
                Use these outputs and advance
              </button>
            </div>
          ) : (
            <p>The run has {session.status === "completed" ? "completed" : "stopped"}.</p>
          )}
          {session.outputs !== undefined && (
            <>
              <h3>Run outputs</h3>
              <Json value={session.outputs} label="Run outputs" />
            </>
          )}
          <h3>Steps taken</h3>
          {steps.length === 0 && <p className="muted">None yet: press Run to execute the first node.</p>}
          <ol className="debug-steps">
            {steps.map((s, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: steps only ever append.
              <li key={i}>
                <NodeRecordView id={s.node_id} node={s} />
              </li>
            ))}
          </ol>
        </section>
      )}
    </>
  );
}
