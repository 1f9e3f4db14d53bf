// One pipeline: its status, versions and definition (nodes and connections). An id of another
// organization answers 404 from the API, shown as not found like any unknown id.
import { useState } from "react";
import { Link } from "wouter";
import { Pager, PAGE_SIZE } from "../components/Pager";
import { ErrorMessage, Loading } from "../components/States";
import { withQuery } from "../lib/api";
import { useApi } from "../lib/use-api";
import type { PipelineSummary } from "./Pipelines";

interface Definition {
  nodes: { id: string; type: string; name?: string }[];
  connections: { from: { node: string; port: string }; to: { node: string; port: string } }[];
}

export function PipelineDetail({ id }: { id: string }) {
  const [offset, setOffset] = useState(0);
  const pipeline = useApi<PipelineSummary & { definition: Definition }>(`/api/pipelines/${encodeURIComponent(id)}`);
  const versions = useApi<{ versions: { version: number; name: string; created_at: string }[]; total_count: number }>(
    pipeline.data ? withQuery(`/api/pipelines/${encodeURIComponent(id)}/versions`, { limit: PAGE_SIZE, offset }) : null,
  );
  if (pipeline.error) return <ErrorMessage error={pipeline.error} />;
  if (!pipeline.data) return <Loading what="the pipeline" />;
  const p = pipeline.data;
  return (
    <>
      <p>
        <Link href="/pipelines">← Pipelines</Link>
      </p>
      <h1>{p.name}</h1>
      <p>
        <Link href={`/pipelines/${p.id}/edit`} className="button-link">
          Open in the editor
        </Link>
      </p>
      <p>
        <span className={`badge ${p.status}`}>{p.status}</span> version {p.version}
        {p.deployed_version !== null && `, version ${p.deployed_version} deployed`}
      </p>
      {p.description && <p>{p.description}</p>}
      <h2>Nodes</h2>
      <ul>
        {p.definition.nodes.map((n) => (
          <li key={n.id}>
            <code>{n.id}</code> {n.name ?? ""} <span className="muted">{n.type}</span>
          </li>
        ))}
      </ul>
      <h2>Connections</h2>
      {p.definition.connections.length === 0 ? (
        <p className="muted">No connections.</p>
      ) : (
        <ul>
          {p.definition.connections.map((c) => (
            <li key={`${c.from.node}.${c.from.port}-${c.to.node}.${c.to.port}`}>
              {c.from.node}.{c.from.port} → {c.to.node}.{c.to.port}
            </li>
          ))}
        </ul>
      )}
      <h2>Versions</h2>
      {versions.error && <ErrorMessage error={versions.error} />}
      {versions.data && (
        <>
          <ul>
            {versions.data.versions.map((v) => (
              <li key={v.version}>
                Version {v.version} · {v.name} · {new Date(v.created_at).toLocaleString()}
              </li>
            ))}
          </ul>
          <Pager label="Versions" offset={offset} total={versions.data.total_count} onChange={setOffset} />
        </>
      )}
    </>
  );
}
