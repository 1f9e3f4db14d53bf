// Chat with an agent: the question, then the answer streamed as it happens — the model's thinking,
// each tool call and its result, the final message — in one conversation the service keeps.
import { useState } from "react";
import { ErrorMessage } from "../components/States";
import { ApiFailure, api } from "../lib/api";
import { type AgentEvent, streamChat } from "./chat-stream";

interface Turn {
  question: string;
  events: AgentEvent[];
  finished: boolean;
}

export function ChatPanel({ agentId, onConversation }: { agentId: string; onConversation(): void }) {
  const [conversation, setConversation] = useState<string>();
  const [text, setText] = useState("");
  const [turns, setTurns] = useState<Turn[]>([]);
  const [error, setError] = useState<ApiFailure>();
  const [busy, setBusy] = useState(false);

  async function send() {
    const question = text.trim();
    if (!question) return;
    setBusy(true);
    setError(undefined);
    setText("");
    const update = (f: (t: Turn) => Turn) => setTurns((all) => all.map((t, i) => (i === all.length - 1 ? f(t) : t)));
    setTurns((all) => [...all, { question, events: [], finished: false }]);
    try {
      let cid = conversation;
      if (!cid) {
        cid = (await api<{ id: string }>(`/api/agents/${encodeURIComponent(agentId)}/conversations`, { method: "POST", body: {} })).id;
        setConversation(cid);
      }
      await streamChat(`/api/agents/${encodeURIComponent(agentId)}/chat`, { message: question, conversation_id: cid }, (e) => update((t) => ({ ...t, events: [...t.events, e] })));
    } catch (e) {
      setError(e instanceof ApiFailure ? e : new ApiFailure(0, "CLIENT", String(e)));
    } finally {
      update((t) => ({ ...t, finished: true }));
      setBusy(false);
      onConversation();
    }
  }

  return (
    <section className="chat" aria-label="Chat">
      <h2>Chat</h2>
      <ol className="chat-turns" aria-live="polite">
        {turns.map((t, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: turns only append.
          <li key={i} className="chat-turn" data-finished={t.finished}>
            <p className="chat-question">
              <strong>You:</strong> {t.question}
            </p>
            {t.events.map((e, j) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: events only append.
              <EventView key={j} e={e} />
            ))}
          </li>
        ))}
      </ol>
      {error && <ErrorMessage error={error} />}
      <form
        className="chat-form"
        onSubmit={(e) => {
          e.preventDefault();
          void send();
        }}
      >
        <label>
          Message
          <textarea name="message" rows={2} value={text} onChange={(e) => setText(e.target.value)} />
        </label>
        <button type="submit" disabled={busy || !text.trim()}>
          Send
        </button>
      </form>
    </section>
  );
}

function EventView({ e }: { e: AgentEvent }) {
  switch (e.event) {
    case "thinking":
      return (
        <p className="chat-event thinking" data-event="thinking">
          <em>Thinking:</em> {e.data.content}
        </p>
      );
    case "tool_call":
      return (
        <p className="chat-event" data-event="tool_call">
          <strong>Calls {e.data.tool}</strong> <code>{JSON.stringify(e.data.params)}</code>
        </p>
      );
    case "tool_result":
      return (
        <details className="chat-event" data-event="tool_result">
          <summary>
            {e.data.tool} {e.data.is_error ? "failed" : "answered"}
          </summary>
          <pre className="json-block">{JSON.stringify(e.data.result, null, 2)}</pre>
        </details>
      );
    case "message":
      return (
        <p className="chat-event answer" data-event="message">
          <strong>Agent:</strong> {e.data.content}
        </p>
      );
    case "error":
      return (
        <p className="chat-event error" data-event="error" role="alert">
          {e.data.code}: {e.data.message}
        </p>
      );
    default:
      return null;
  }
}
