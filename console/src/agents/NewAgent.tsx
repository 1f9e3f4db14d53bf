// Creates an agent (POST /api/agents) from a base template (GET /api/agents?base_templates=true)
// with its name and model; the template gives the rest, edited afterwards on the agent's page.
import { type FormEvent, useState } from "react";
import { useLocation } from "wouter";
import type { components } from "../../../clients/typescript/api.generated";
import { ErrorMessage } from "../components/States";
import { api } from "../lib/api";
import { useAction } from "../lib/use-action";
import { useApi } from "../lib/use-api";
import type { Agent } from "../pages/Agents";

type Model = components["schemas"]["LlmModel"];

export function NewAgent() {
  const templates = useApi<{ agents: Agent[] }>("/api/agents?base_templates=true&limit=100");
  const models = useApi<{ models: Model[] }>("/api/llm-models");
  const [name, setName] = useState("");
  const [template, setTemplate] = useState("");
  const [model, setModel] = useState("");
  const create = useAction();
  const [, navigate] = useLocation();
  const templateId = template || templates.data?.agents[0]?.id || "";
  const failure = create.failure ?? templates.error;

  function submit(e: FormEvent) {
    e.preventDefault();
    void create.run(async () => {
      const body = { name: name.trim(), template_id: templateId, ...(model ? { model_config: { model } } : {}) };
      const agent = await api<Agent>("/api/agents", { method: "POST", body });
      navigate(`/agents/${agent.id}`);
    });
  }

  return (
    <form className="inline-form" aria-label="New agent" onSubmit={submit}>
      <label>
        Name
        <input name="name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} />
      </label>
      <label>
        Template
        <select name="template" value={templateId} onChange={(e) => setTemplate(e.target.value)}>
          {templates.data?.agents.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Model
        <select name="model" value={model} onChange={(e) => setModel(e.target.value)}>
          <option value="">The template's</option>
          {models.data?.models.map((m) => (
            <option key={m.id} value={m.id}>
              {m.id}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" disabled={create.busy || !templateId}>
        Create agent
      </button>
      {failure && <ErrorMessage error={failure} />}
    </form>
  );
}
