// Hourly bars (SVG) for the 24-hour figures the service counts per UTC hour: each bar stacks the
// parts of its hour (statuses, severities…) in the order given, each part in its own colour. The
// chart is one image to assistive technology, its figures in its label; each bar's hour and parts
// are in its <title> for a pointer. The legend (HourLegend) names the parts with their totals.

/** Fills with at least 3:1 contrast against the white page (WCAG 1.4.11), distinct in hue. */
const FILLS = ["#0b57d0", "#146c2e", "#8a4f00", "#6f42c1", "#00708a", "#5f6368", "#c5007c"];

export interface ChartPart {
  name: string;
  counts: readonly number[];
  /** A fixed fill (the channels dashboard's errored red); otherwise the part's place picks one. */
  fill?: string;
}

/** Parts that mean trouble (a failed run, a rejected message, a high alert) are red wherever they rank. */
const TROUBLE = new Set(["failed", "error", "errored", "rejected", "dead", "critical", "high"]);
const TROUBLE_FILL = "#b3261e";

export const partFill = (part: ChartPart, index: number) => part.fill ?? (TROUBLE.has(part.name) ? TROUBLE_FILL : FILLS[index % FILLS.length]!);

const hourWords = (start: string) => new Date(start).toLocaleString([], { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });

export function HourChart({ hours, parts, label, stacked = true, height = 48, barWidth = 14 }: { hours: readonly string[]; parts: readonly ChartPart[]; label: string; stacked?: boolean; height?: number; barWidth?: number }) {
  const w = barWidth;
  const sums = hours.map((_, i) => (stacked ? parts.reduce((n, p) => n + (p.counts[i] ?? 0), 0) : Math.max(0, ...parts.map((p) => p.counts[i] ?? 0))));
  const top = Math.max(1, ...sums);
  const scale = (n: number) => (n / top) * height;
  return (
    <svg className="hour-chart" viewBox={`0 0 ${hours.length * w} ${height}`} width={hours.length * w} height={height} role="img" aria-label={label}>
      {hours.map((start, i) => {
        let y = height;
        const figures = parts.map((p) => `${p.counts[i] ?? 0} ${p.name}`).join(", ");
        return (
          <g key={start}>
            <title>{`${hourWords(start)}: ${figures || "none"}`}</title>
            <rect x={i * w} y={0} width={w} height={height} className="bar-slot" />
            {parts.map((p, k) => {
              const h = scale(p.counts[i] ?? 0);
              if (h === 0) return null;
              if (stacked) y -= h;
              return <rect key={p.name} x={i * w + 1} y={stacked ? y : height - h} width={w - 2} height={h} fill={partFill(p, k)} />;
            })}
          </g>
        );
      })}
    </svg>
  );
}

/** The parts' names and totals beside their colours. */
export function HourLegend({ parts }: { parts: readonly (ChartPart & { total: number })[] }) {
  return (
    <ul className="hour-legend">
      {parts.map((p, k) => (
        <li key={p.name} data-part={p.name}>
          <svg width="10" height="10" aria-hidden="true">
            <rect width="10" height="10" fill={partFill(p, k)} />
          </svg>
          <span>
            {p.name} <strong>{p.total}</strong>
          </span>
        </li>
      ))}
    </ul>
  );
}
