// Pipelines: every pipeline of the organization with its status and version, a page at a time.
import { useState } from "react";
import { Link } from "wouter";
import { Pager, PAGE_SIZE } from "../components/Pager";
import { EmptyState, ErrorMessage, Loading } from "../components/States";
import { withQuery } from "../lib/api";
import { useSession } from "../lib/session";
import { useApi } from "../lib/use-api";

export interface PipelineSummary {
  id: string;
  name: string;
  description: string;
  status: "active" | "deployed";
  version: number;
  deployed_version: number | null;
  updated_at: string;
}

export function Pipelines() {
  const [offset, setOffset] = useState(0);
  const { can } = useSession();
  const { data, error, loading } = useApi<{ pipelines: PipelineSummary[]; total_count: number }>(withQuery("/api/pipelines", { limit: PAGE_SIZE, offset }));
  return (
    <>
      <h1>Pipelines</h1>
      {can("pipelines:manage") && (
        <p>
          <Link href="/pipelines/new" className="button-link">
            New pipeline
          </Link>
        </p>
      )}
      {error && <ErrorMessage error={error} />}
      {loading && !data && <Loading what="pipelines" />}
      {data && data.total_count === 0 && (
        <EmptyState title="No pipelines yet">
          <p>Pipelines turn inbound messages, device readings and schedules into FHIR resources. Create one with "New pipeline" above, or through the API (POST /api/pipelines).</p>
        </EmptyState>
      )}
      {data && data.total_count > 0 && (
        <>
          <table>
            <caption className="visually-hidden">Pipelines</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Version</th>
                <th scope="col">Deployed version</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {data.pipelines.map((p) => (
                <tr key={p.id}>
                  <td>
                    <Link href={`/pipelines/${p.id}`}>{p.name}</Link>
                  </td>
                  <td>
                    <span className={`badge ${p.status}`}>{p.status}</span>
                  </td>
                  <td>{p.version}</td>
                  <td>{p.deployed_version ?? "—"}</td>
                  <td>{new Date(p.updated_at).toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager label="Pipelines" offset={offset} total={data.total_count} onChange={setOffset} />
        </>
      )}
    </>
  );
}
