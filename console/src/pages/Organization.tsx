// Settings → Organization: the effective limits and what is in use now where the API tells it
// (running executions against the concurrency limit).
import { ErrorMessage, Loading } from "../components/States";
import { useSession } from "../lib/session";
import { useApi } from "../lib/use-api";
import { TableHead } from "../components/TableHead";

interface Org {
  id: string;
  name: string;
  created_at: string;
  limits: { apiPerMinute: number; agentChatPerMinute: number; copilotPerMinute: number; concurrentExecutions: number; concurrentExports: number };
}

const LIMITS: { key: keyof Org["limits"]; label: string }[] = [
  { key: "apiPerMinute", label: "API requests per minute" },
  { key: "agentChatPerMinute", label: "Agent chat messages per minute" },
  { key: "copilotPerMinute", label: "Copilot requests per minute" },
  { key: "concurrentExecutions", label: "Concurrent pipeline executions" },
  { key: "concurrentExports", label: "Concurrent bulk exports" },
];

export function Organization() {
  const { can } = useSession();
  const org = useApi<Org>("/api/organization");
  const running = useApi<{ total_count: number }>(can("pipelines:read") ? "/api/executions?status=running&limit=1" : null);
  if (org.error) return <ErrorMessage error={org.error} />;
  if (!org.data) return <Loading what="the organization" />;
  const usage: Partial<Record<keyof Org["limits"], number>> = running.data ? { concurrentExecutions: running.data.total_count } : {};
  return (
    <>
      <h1>Organization</h1>
      <p>
        {org.data.name} <code>{org.data.id}</code> · since {new Date(org.data.created_at).toLocaleDateString()}
      </p>
      <table>
        <caption>Limits and current usage</caption>
        <TableHead columns={["Limit", "Allowed", "In use now"]} />
        <tbody>
          {LIMITS.map((l) => (
            <tr key={l.key}>
              <td>{l.label}</td>
              <td>{org.data?.limits[l.key]}</td>
              <td>{usage[l.key] ?? <span className="muted">not reported by the API</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {running.error && <ErrorMessage error={running.error} />}
    </>
  );
}
