// An agent's version snapshots, newest first: snapshot the current configuration, restore one
// (the agent is then read again, so its settings form shows the restored configuration).
import { useState } from "react";
import type { components } from "../../../clients/typescript/api.generated";
import { Pager, PAGE_SIZE } from "../components/Pager";
import { ErrorMessage } from "../components/States";
import { ApiFailure, api, withQuery } from "../lib/api";
import { useApi } from "../lib/use-api";
import type { Agent } from "../pages/Agents";

type Version = components["schemas"]["AgentVersion"];

export function AgentVersions({ agentId, canEdit, onChanged }: { agentId: string; canEdit: boolean; onChanged(): void }) {
  const [offset, setOffset] = useState(0);
  const base = `/api/agents/${encodeURIComponent(agentId)}/versions`;
  const { data, error, reload } = useApi<{ versions: Version[]; total_count: number }>(withQuery(base, { limit: PAGE_SIZE, offset }));
  const [failure, setFailure] = useState<ApiFailure>();

  async function act(work: () => Promise<void>) {
    setFailure(undefined);
    try {
      await work();
      reload();
    } catch (e) {
      setFailure(e instanceof ApiFailure ? e : new ApiFailure(0, "CLIENT", String(e)));
    }
  }

  return (
    <section className="versions-panel" aria-label="Agent versions">
      <h2>Versions</h2>
      {canEdit && (
        <button
          type="button"
          onClick={() =>
            void act(async () => {
              await api(base, { method: "POST", body: {} });
              onChanged();
            })
          }
        >
          Save current configuration as a version
        </button>
      )}
      {(error || failure) && <ErrorMessage error={(failure ?? error) as ApiFailure} />}
      {data && data.total_count === 0 && <p className="muted">No versions yet: save one to be able to return to this configuration.</p>}
      <ul>
        {data?.versions.map((v) => (
          <li key={v.version} data-version={v.version}>
            Version {v.version} · {new Date(v.created_at).toLocaleString()} {v.note && `· ${v.note}`}{" "}
            {canEdit && (
              <button type="button" aria-label={`Restore version ${v.version}`} onClick={() =>
                  void act(async () => {
                    await api<Agent>(`${base}/${v.version}/restore`, { method: "POST" });
                    onChanged();
                  })
                }>
                Restore
              </button>
            )}
          </li>
        ))}
      </ul>
      {data && <Pager label="Versions" offset={offset} total={data.total_count} onChange={setOffset} />}
    </section>
  );
}
