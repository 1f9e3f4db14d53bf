// An agent's conversations, most recently active first, and the messages of the one opened.
import { useEffect, useState } from "react";
import type { components } from "../../../clients/typescript/api.generated";
import { Pager, PAGE_SIZE } from "../components/Pager";
import { ErrorMessage } from "../components/States";
import { withQuery } from "../lib/api";
import { useApi } from "../lib/use-api";

type Conversation = components["schemas"]["AgentConversation"];
type Message = components["schemas"]["AgentMessage"];

export function Conversations({ agentId, refresh }: { agentId: string; refresh: number }) {
  const [offset, setOffset] = useState(0);
  const [open, setOpen] = useState<string>();
  const base = `/api/agents/${encodeURIComponent(agentId)}/conversations`;
  const { data, error, reload } = useApi<{ conversations: Conversation[]; total_count: number }>(withQuery(base, { limit: PAGE_SIZE, offset }));
  // A chat turn started or continued a conversation: list them again.
  useEffect(() => {
    if (refresh) reload();
  }, [refresh, reload]);
  const messages = useApi<{ messages: Message[]; total_count: number }>(open ? withQuery(`${base}/${encodeURIComponent(open)}/messages`, { limit: 100 }) : null);
  return (
    <section className="conversations" aria-label="Conversations">
      <h2>Conversations</h2>
      {error && <ErrorMessage error={error} />}
      {data && data.total_count === 0 && <p className="muted">No conversations yet: send a message in the chat to start one.</p>}
      <ul>
        {data?.conversations.map((c) => (
          <li key={c.id}>
            <button type="button" className="link-button" aria-expanded={open === c.id} onClick={() => setOpen(open === c.id ? undefined : c.id)}>
              {c.title || "Untitled"} · {c.message_count} messages · {new Date(c.updated_at).toLocaleString()}
            </button>
            {open === c.id && messages.data && (
              <ol className="conversation-messages">
                {messages.data.messages.map((m) => (
                  <li key={m.id}>
                    <strong>{m.role === "user" ? "You" : "Agent"}:</strong> {m.content}
                  </li>
                ))}
              </ol>
            )}
          </li>
        ))}
      </ul>
      {data && <Pager label="Conversations" offset={offset} total={data.total_count} onChange={setOffset} />}
    </section>
  );
}
