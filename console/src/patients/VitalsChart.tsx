// One metric's readings drawn with uPlot (canvas; bundled only into the patient page's chunk).
import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

export function VitalsChart({ label, unit, points }: { label: string; unit: string; points: { timestamp: string; value: number }[] }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const sorted = [...points].sort((a, b) => Date.parse(a.timestamp) - Date.parse(b.timestamp));
    const data: uPlot.AlignedData = [sorted.map((p) => Date.parse(p.timestamp) / 1000), sorted.map((p) => p.value)];
    const chart = new uPlot(
      {
        width: Math.max(320, el.clientWidth || 800),
        height: 260,
        series: [{}, { label: `${label} (${unit})`, stroke: "#0b57d0", width: 2, points: { show: true } }],
        axes: [{}, { label: unit }],
      },
      data,
      el,
    );
    return () => chart.destroy();
  }, [label, unit, points]);
  return <div ref={host} className="vitals-chart" role="img" aria-label={`${label} chart, ${points.length} points`} />;
}
