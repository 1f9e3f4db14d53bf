// One agent: deploy or undeploy it, its settings (model, prompt, tools), versions, a streaming chat
// and its conversations.
import { useState } from "react";
import { Link } from "wouter";
import { AgentSettings } from "../agents/AgentSettings";
import { AgentVersions } from "../agents/AgentVersions";
import { ChatPanel } from "../agents/ChatPanel";
import { Conversations } from "../agents/Conversations";
import { ErrorMessage, Loading } from "../components/States";
import { api } from "../lib/api";
import { useSession } from "../lib/session";
import { useAction } from "../lib/use-action";
import { useApi } from "../lib/use-api";
import type { Agent } from "./Agents";

export function AgentDetail({ id }: { id: string }) {
  const { can } = useSession();
  const { data, error, loading, reload } = useApi<Agent>(`/api/agents/${encodeURIComponent(id)}`);
  const [conversations, setConversations] = useState(0);
  /** updated_at of the configuration the user just saved, to say "Saved." on the form it remounts. */
  const [savedAt, setSavedAt] = useState<string | null>();
  const deploy = useAction();
  if (error) return <ErrorMessage error={error} />;
  if (loading && !data) return <Loading what="the agent" />;
  if (!data) return null;
  const canEdit = can("agents:manage");
  return (
    <>
      <p>
        <Link href="/agents">← Agents</Link>
      </p>
      <h1>
        {data.name} <span className="badge">{data.deployed ? "deployed" : "not deployed"}</span>
      </h1>
      <p className="muted">
        {data.agent_type} · version {data.version} {data.description && `· ${data.description}`}
      </p>
      {canEdit && (
        <p className="actions">
          <button
            type="button"
            disabled={deploy.busy}
            onClick={() => void deploy.run(async () => {
              // Deployed: pipelines and the public invoke endpoint serve it; undeployed, they stop.
              await api(`/api/agents/${encodeURIComponent(data.id)}/${data.deployed ? "undeploy" : "deploy"}`, { method: "POST", body: {} });
              reload();
            })}
          >
            {data.deployed ? "Undeploy" : "Deploy"}
          </button>
        </p>
      )}
      {deploy.failure && <ErrorMessage error={deploy.failure} />}
      <div className="agent-columns">
        <div>
          {can("agents:chat") && <ChatPanel agentId={data.id} onConversation={() => setConversations((n) => n + 1)} />}
          <Conversations agentId={data.id} refresh={conversations} />
        </div>
        <div>
          <h2>Settings</h2>
          <AgentSettings
            key={`${data.id}:${data.updated_at}`}
            agent={data}
            canEdit={canEdit}
            saved={savedAt === data.updated_at}
            onSaved={(a) => {
              setSavedAt(a.updated_at);
              reload();
            }}
          />
          <AgentVersions agentId={data.id} canEdit={canEdit} onChanged={reload} />
        </div>
      </div>
    </>
  );
}
