// A pipeline's kept versions: what each changed against the definition on the canvas (an RFC 6902
// diff, fast-json-patch) and restore, which saves that version's definition as a new version.
import { useState } from "react";
import { Pager, PAGE_SIZE } from "../components/Pager";
import { ErrorMessage } from "../components/States";
import { ApiFailure, api, withQuery } from "../lib/api";
import { useApi } from "../lib/use-api";
import { DefinitionDiff } from "./DefinitionDiff";
import type { Definition } from "./definition";

interface Version {
  version: number;
  name: string;
  created_at: string;
  definition: Definition;
}

export function VersionsPanel({ pipelineId, current, canRestore, onRestored }: { pipelineId: string; current: Definition; canRestore: boolean; onRestored(): void }) {
  const [offset, setOffset] = useState(0);
  const versions = useApi<{ versions: Version[]; total_count: number }>(withQuery(`/api/pipelines/${encodeURIComponent(pipelineId)}/versions`, { limit: PAGE_SIZE, offset }));
  const [open, setOpen] = useState<number>();
  const [failure, setFailure] = useState<ApiFailure>();

  async function restore(v: Version) {
    setFailure(undefined);
    try {
      await api(`/api/pipelines/${encodeURIComponent(pipelineId)}`, { method: "PUT", body: { name: v.name, definition: v.definition } });
      onRestored();
    } catch (e) {
      if (e instanceof ApiFailure) setFailure(e);
      else throw e;
    }
  }

  return (
    <section className="versions-panel" aria-label="Versions">
      <h2>Versions</h2>
      {versions.error && <ErrorMessage error={versions.error} />}
      {failure && <ErrorMessage error={failure} />}
      <ul>
        {versions.data?.versions.map((v) => {
          return (
            <li key={v.version} data-version={v.version}>
              <button type="button" onClick={() => setOpen(open === v.version ? undefined : v.version)} aria-expanded={open === v.version}>
                Version {v.version}
              </button>{" "}
              <span className="muted">{new Date(v.created_at).toLocaleString()}</span>
              {open === v.version && (
                <div className="version-diff">
                  <DefinitionDiff from={v.definition} to={current} label={`Changes from version ${v.version} to the canvas`} same="Same as the canvas." />
                  {canRestore && (
                    <button type="button" onClick={() => void restore(v)}>
                      Restore version {v.version}
                    </button>
                  )}
                </div>
              )}
            </li>
          );
        })}
      </ul>
      {versions.data && <Pager label="Versions" offset={offset} total={versions.data.total_count} onChange={setOffset} />}
    </section>
  );
}
