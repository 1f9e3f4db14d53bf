// The copilot in the editor: a request in plain words generates a pipeline (empty canvas) or
// modifies the open one (the canvas as it is, saved or not); the proposal's changes against the
// canvas and the service's validation of it (errors and warnings per node) are shown before an
// explicit Apply replaces the canvas. Generation and modification need `pipelines:manage`, as
// their routes do; the editor shows the panel only then.
import { useState } from "react";
import "./copilot.css";
import { ErrorMessage } from "../components/States";
import { api } from "../lib/api";
import { useAction } from "../lib/use-action";
import { DefinitionDiff } from "./DefinitionDiff";
import type { Definition, Finding } from "./definition";

interface Generated {
  pipeline: { name: string; description: string } & Definition;
  attempts: number;
  model: string;
}

export interface Proposal {
  name: string;
  definition: Definition;
  attempts: number;
  model: string;
  validation: { valid: boolean; errors: Finding[]; warnings: Finding[] };
}

function FindingList({ label, findings, className }: { label: string; findings: Finding[]; className: string }) {
  if (findings.length === 0) return null;
  return (
    <>
      <h3>{label}</h3>
      <ul className={className} aria-label={label}>
        {findings.map((f) => (
          <li key={`${f.node_id}${f.path}${f.message}`}>
            {f.node_id ? <code>{f.node_id}</code> : "Pipeline"}
            {f.path ? ` (${f.path})` : ""}: {f.message}
          </li>
        ))}
      </ul>
    </>
  );
}

export function CopilotPanel({ current, onApply }: { current: Definition; onApply(proposal: Proposal): void }) {
  const [request, setRequest] = useState("");
  const [proposal, setProposal] = useState<Proposal>();
  const { failure, busy, run } = useAction();
  const modify = current.nodes.length > 0;

  const ask = () =>
    run(async () => {
      setProposal(undefined);
      const generated = modify
        ? await api<Generated>("/api/copilot/modify/pipeline", { method: "POST", body: { definition: current, instruction: request } })
        : await api<Generated>("/api/copilot/generate/pipeline", { method: "POST", body: { description: request } });
      const { name, description: _d, ...definition } = generated.pipeline;
      const validation = await api<Proposal["validation"]>("/api/copilot/validate/pipeline", { method: "POST", body: { definition } });
      setProposal({ name, definition, attempts: generated.attempts, model: generated.model, validation });
    });

  return (
    <section className="copilot-panel" aria-label="Copilot">
      <h2>Copilot</h2>
      <label>
        {modify ? "Change this pipeline" : "Describe the pipeline to generate"}
        <textarea rows={3} value={request} onChange={(e) => setRequest(e.target.value)} placeholder={modify ? "e.g. wait 2 seconds before the transform" : "e.g. greet the caller by name"} />
      </label>
      <button type="button" onClick={() => void ask()} disabled={busy || !request.trim()}>
        {modify ? "Propose changes" : "Generate"}
      </button>
      {busy && (
        <p className="muted" role="status">
          The model is writing the pipeline; the service checks each attempt…
        </p>
      )}
      {failure && <ErrorMessage error={failure} />}
      {proposal && (
        <div className="copilot-proposal" data-valid={proposal.validation.valid}>
          <p>
            <strong>{proposal.name}</strong> <span className="muted">by {proposal.model}, {proposal.attempts === 1 ? "first attempt" : `${proposal.attempts} attempts`}</span>
          </p>
          <h3>Changes to the canvas</h3>
          <DefinitionDiff from={current} to={proposal.definition} label="Changes the copilot proposes" same="The proposal is the same as the canvas." />
          <p className={proposal.validation.valid ? "ok-text" : "error"} role="status">
            {proposal.validation.valid ? "The service accepts this definition." : "The service would refuse this definition."}
          </p>
          <FindingList label="Errors" findings={proposal.validation.errors} className="error" />
          <FindingList label="Warnings" findings={proposal.validation.warnings} className="copilot-warnings" />
          <div className="copilot-actions">
            <button
              type="button"
              onClick={() => {
                onApply(proposal);
                setProposal(undefined);
                setRequest("");
              }}
            >
              Apply to the canvas
            </button>
            <button type="button" onClick={() => setProposal(undefined)}>
              Discard
            </button>
          </div>
        </div>
      )}
    </section>
  );
}
