// The landing page: the organization, the session's role, the last 24 hours' figures (messages in,
// executions by status, alerts, exports, device readings) hour by hour from GET /api/v1/overview,
// refreshed every 30 s, and where to go next.
import { Link } from "wouter";
import { HourChart, HourLegend } from "../components/HourChart";
import { NAV } from "../components/Layout";
import { ErrorMessage, Loading } from "../components/States";
import { useSession } from "../lib/session";
import { useApi } from "../lib/use-api";
import { usePolling } from "../lib/use-polling";

interface Series {
  id: "messages" | "executions" | "alerts" | "exports" | "readings";
  label: string;
  total: number;
  counts: number[];
  split: string;
  parts: { name: string; total: number; counts: number[] }[];
}
interface OverviewFigures {
  since: string;
  hours: string[];
  series: Series[];
}

const REFRESH_MS = 30_000;

/** The page each series' records are on. */
const PAGE_OF: Record<Series["id"], string> = { messages: "/messages", executions: "/executions", alerts: "/devices", exports: "/exports", readings: "/devices" };

function SeriesCard({ series, hours }: { series: Series; hours: string[] }) {
  const { can } = useSession();
  const page = NAV.find((n) => n.href === PAGE_OF[series.id]);
  const headingId = `series-${series.id}`;
  const figures = series.parts.map((p) => `${p.total} ${p.name}`).join(", ");
  return (
    <section className="series-card" data-series={series.id} aria-labelledby={headingId}>
      <h3 id={headingId}>{page && can(page.needs) ? <Link href={page.href}>{series.label}</Link> : series.label}</h3>
      <p className="series-total">
        <strong data-total>{series.total}</strong> <span className="muted">in 24 hours</span>
      </p>
      <HourChart
        hours={hours}
        parts={series.parts}
        label={`${series.label} per hour over the last ${hours.length} hours: ${series.total}${figures ? ` (${figures})` : ""}`}
      />
      <div className="hour-axis muted" aria-hidden="true">
        <span>24 h ago</span>
        <span>now</span>
      </div>
      {series.parts.length > 0 ? <HourLegend parts={series.parts} /> : <p className="muted">None.</p>}
      {series.parts.length > 0 && <p className="visually-hidden">By {series.split}.</p>}
    </section>
  );
}

function Figures() {
  const figures = useApi<OverviewFigures>("/api/v1/overview");
  usePolling(!figures.loading, REFRESH_MS, figures.reload);
  if (figures.error) return <ErrorMessage error={figures.error} />;
  if (!figures.data) return <Loading what="the last 24 hours" />;
  const { hours, series } = figures.data;
  return (
    <div className="series-grid">
      {series.map((s) => (
        <SeriesCard key={s.id} series={s} hours={hours} />
      ))}
    </div>
  );
}

export function Overview() {
  const { session, can } = useSession();
  if (!session) return null;
  return (
    <>
      <h1>{session.organization.name}</h1>
      <p>
        {session.user ? (
          <>
            Signed in as <strong>{session.user.name}</strong> ({session.user.email})
          </>
        ) : (
          <>
            Signed in with the key <strong>{session.key?.name}</strong> ({session.key?.key_prefix}…)
          </>
        )}{" "}
        as <strong>{session.role}</strong>. The session ends at{" "}
        {new Date(session.expires_at).toLocaleString()} unless you keep working.
      </p>
      {can("org:read") && (
        <>
          <h2>The last 24 hours</h2>
          <Figures />
        </>
      )}
      <h2>What you can do</h2>
      <ul>
        {NAV.filter((item) => item.href !== "/" && can(item.needs)).map((item) => (
          <li key={item.href}>
            <Link href={item.href}>{item.label}</Link>
          </li>
        ))}
      </ul>
    </>
  );
}
