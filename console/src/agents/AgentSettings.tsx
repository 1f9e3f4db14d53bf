// Edit an agent's model, prompts and tools (PUT /api/agents/<id>; fields not sent are kept). The
// service checks the model and tool names and answers 400 with what is wrong.
import { useState } from "react";
import type { components } from "../../../clients/typescript/api.generated";
import { ErrorMessage } from "../components/States";
import { ApiFailure, api } from "../lib/api";
import { useApi } from "../lib/use-api";
import type { Agent } from "../pages/Agents";

type Model = components["schemas"]["LlmModel"];

/** `saved`: this configuration is the one the user just saved (the page remounts the form on each new version, so the notice lives there). */
export function AgentSettings({ agent, canEdit, saved, onSaved }: { agent: Agent; canEdit: boolean; saved: boolean; onSaved(a: Agent): void }) {
  const models = useApi<{ models: Model[] }>("/api/llm-models");
  const [model, setModel] = useState(agent.model_config.model);
  const [systemPrompt, setSystemPrompt] = useState(agent.system_prompt);
  const [tools, setTools] = useState(agent.tools.join(", "));
  const [error, setError] = useState<ApiFailure>();

  async function save() {
    setError(undefined);
    try {
      const body = {
        model_config: { ...agent.model_config, model },
        system_prompt: systemPrompt,
        tools: tools
          .split(",")
          .map((t) => t.trim())
          .filter(Boolean),
      };
      onSaved(await api<Agent>(`/api/agents/${encodeURIComponent(agent.id)}`, { method: "PUT", body }));
    } catch (e) {
      setError(e instanceof ApiFailure ? e : new ApiFailure(0, "CLIENT", String(e)));
    }
  }

  const choices = new Set([...(models.data?.models.map((m) => m.id) ?? []), agent.model_config.model]);
  return (
    <form
      className="agent-settings"
      aria-label="Agent settings"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <label>
        Model
        <select name="model" value={model} onChange={(e) => setModel(e.target.value)} disabled={!canEdit}>
          {[...choices].map((id) => (
            <option key={id} value={id}>
              {id}
            </option>
          ))}
        </select>
      </label>
      <label>
        System prompt
        <textarea name="system_prompt" rows={5} value={systemPrompt} onChange={(e) => setSystemPrompt(e.target.value)} readOnly={!canEdit} />
      </label>
      <label>
        Tools (comma-separated: built-in names such as fhir_search, fhir_read, or custom tools)
        <input name="tools" value={tools} onChange={(e) => setTools(e.target.value)} readOnly={!canEdit} />
      </label>
      {error && <ErrorMessage error={error} />}
      {saved && !error && (
        <p className="notice" role="status">
          Saved.
        </p>
      )}
      {canEdit && <button type="submit">Save</button>}
    </form>
  );
}
