// Reloads a page's data on a timer while it is idle: the next round is set only once the last
// load has ended (`idle` turns true again), so a slow service is never asked twice at once.
import { useEffect, useRef } from "react";

export function usePolling(idle: boolean, ms: number, ...reloads: (() => void)[]): void {
  const latest = useRef(reloads);
  latest.current = reloads;
  useEffect(() => {
    if (!idle) return;
    const timer = setTimeout(() => {
      for (const reload of latest.current) reload();
    }, ms);
    return () => clearTimeout(timer);
  }, [idle, ms]);
}
