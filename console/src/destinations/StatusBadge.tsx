// A destination's status: active, paused, or failing with the failure's class and since when.
import { when } from "./format";
import type { Destination } from "./types";

export function StatusBadge({ destination: d }: { destination: Destination }) {
  return (
    <>
      <span className={`badge ${d.status}`} data-destination-status={d.status}>
        {d.status}
      </span>
      {d.status === "failing" && (
        <div className="failure-line">
          {d.figures.last_failure && <code>{d.figures.last_failure.class}</code>} since {when(d.figures.failing_since)}
          {d.figures.last_failure && <div className="muted wrap">{d.figures.last_failure.message}</div>}
        </div>
      )}
    </>
  );
}
