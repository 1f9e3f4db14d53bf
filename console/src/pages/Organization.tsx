// Settings → Organization: the effective limits beside what is in use now, from one endpoint
// reading the OrgGate's own counters (GET /api/organization/usage): requests of the current
// rate window, the signed-in key's chat and copilot windows, running executions and exports.
import { ErrorMessage, Loading } from "../components/States";
import { TableHead } from "../components/TableHead";
import { useApi } from "../lib/use-api";

interface Org {
  id: string;
  name: string;
  created_at: string;
  limits: { apiPerMinute: number; agentChatPerMinute: number; copilotPerMinute: number; concurrentExecutions: number; concurrentExports: number };
}

interface Usage {
  window: { seconds: number; resets_at: string };
  requests: { used: number };
  agent_chat: { used: number };
  copilot: { used: number };
  executions: { running: number };
  exports: { running: number };
}

const LIMITS: { key: keyof Org["limits"]; label: string; inUse(u: Usage): string }[] = [
  { key: "apiPerMinute", label: "API requests per minute", inUse: (u) => `${u.requests.used} this minute (whole organization)` },
  { key: "agentChatPerMinute", label: "Agent chat messages per minute", inUse: (u) => `${u.agent_chat.used} this minute (your key)` },
  { key: "copilotPerMinute", label: "Copilot requests per minute", inUse: (u) => `${u.copilot.used} this minute (your key)` },
  { key: "concurrentExecutions", label: "Concurrent pipeline executions", inUse: (u) => `${u.executions.running} running` },
  { key: "concurrentExports", label: "Concurrent bulk exports", inUse: (u) => `${u.exports.running} running` },
];

export function Organization() {
  const org = useApi<Org>("/api/organization");
  const usage = useApi<Usage>("/api/organization/usage");
  if (org.error) return <ErrorMessage error={org.error} />;
  if (!org.data) return <Loading what="the organization" />;
  const u = usage.data;
  return (
    <>
      <h1>Organization</h1>
      <p>
        {org.data.name} <code>{org.data.id}</code> · since {new Date(org.data.created_at).toLocaleDateString()}
      </p>
      <table className="usage">
        <caption>Limits and current usage</caption>
        <TableHead columns={["Limit", "Allowed", "In use now"]} />
        <tbody>
          {LIMITS.map((l) => (
            <tr key={l.key} data-limit={l.key}>
              <td>{l.label}</td>
              <td>{org.data?.limits[l.key]}</td>
              <td>{u ? l.inUse(u) : <span className="muted">—</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {u && (
        <p className="muted">
          The rate window is {u.window.seconds} s long and restarts at {new Date(u.window.resets_at).toLocaleTimeString()}. Requests are counted as the limiter grants them, so the figure can run slightly ahead of the requests served.{" "}
          <button type="button" onClick={usage.reload} disabled={usage.loading}>
            Refresh
          </button>
        </p>
      )}
      {usage.error && <ErrorMessage error={usage.error} />}
    </>
  );
}
