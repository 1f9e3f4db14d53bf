// Agents: the organization's AI agents with their model, tools and deploy state, a page at a time,
// and a new one from a base template (agents:manage).
import { useState } from "react";
import { Link } from "wouter";
import type { components } from "../../../clients/typescript/api.generated";
import { Pager, PAGE_SIZE } from "../components/Pager";
import { EmptyState, ErrorMessage, Loading } from "../components/States";
import { NewAgent } from "../agents/NewAgent";
import { withQuery } from "../lib/api";
import { useSession } from "../lib/session";
import { useApi } from "../lib/use-api";

export type Agent = components["schemas"]["Agent"];

export function Agents() {
  const { can } = useSession();
  const [offset, setOffset] = useState(0);
  const { data, error, loading } = useApi<{ agents: Agent[]; total_count: number }>(withQuery("/api/agents", { limit: PAGE_SIZE, offset }));
  return (
    <>
      <h1>Agents</h1>
      {can("agents:manage") && <NewAgent />}
      {error && <ErrorMessage error={error} />}
      {loading && !data && <Loading what="agents" />}
      {data && data.total_count === 0 && (
        <EmptyState title="No agents yet">
          <p>Agents answer questions with the organization's FHIR data through tools. Create one from a base template{can("agents:manage") ? " above" : " (an administrator can)"}.</p>
        </EmptyState>
      )}
      {data && data.total_count > 0 && (
        <>
          <table>
            <caption className="visually-hidden">Agents</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Model</th>
                <th scope="col">Tools</th>
                <th scope="col">Deployed</th>
                <th scope="col">Version</th>
              </tr>
            </thead>
            <tbody>
              {data.agents.map((a) => (
                <tr key={a.id} data-agent-id={a.id}>
                  <td>
                    <Link href={`/agents/${a.id}`}>{a.name}</Link>
                  </td>
                  <td>{a.model_config.model}</td>
                  <td>{a.tools.join(", ") || "—"}</td>
                  <td>{a.deployed ? "yes" : "no"}</td>
                  <td>{a.version}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager label="Agents" offset={offset} total={data.total_count} onChange={setOffset} />
        </>
      )}
    </>
  );
}
