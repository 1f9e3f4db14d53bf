// The frame of every signed-in page: who is signed in, sign-out, and the navigation, which lists
// only what the session's role may use (the API refuses the rest regardless).
import type { ReactNode } from "react";
import { Link, useLocation } from "wouter";
import { signedInAs, useSession } from "../lib/session";

interface NavItem {
  href: string;
  label: string;
  /** The permission the page needs; without it the link is not shown. */
  needs: string;
}

export const NAV: readonly NavItem[] = [
  { href: "/", label: "Overview", needs: "org:read" },
  { href: "/pipelines", label: "Pipelines", needs: "pipelines:read" },
  { href: "/executions", label: "Executions", needs: "pipelines:read" },
  { href: "/messages", label: "Messages", needs: "messages:read" },
  { href: "/channels", label: "Channels", needs: "messages:read" },
  { href: "/destinations", label: "Destinations", needs: "messages:read" },
  { href: "/subscriptions", label: "Subscriptions", needs: "messages:read" },
  { href: "/webhooks", label: "Event webhooks", needs: "webhooks:manage" },
  { href: "/agents", label: "Agents", needs: "agents:read" },
  { href: "/patients", label: "Patients", needs: "fhir:read" },
  { href: "/devices", label: "Devices", needs: "fhir:read" },
  { href: "/fhir-browser", label: "FHIR browser", needs: "fhir:read" },
  { href: "/exports", label: "Exports", needs: "export:run" },
  { href: "/settings/users", label: "Users", needs: "users:manage" },
  { href: "/settings/applications", label: "Applications", needs: "clients:manage" },
  { href: "/settings/access-policies", label: "Access policies", needs: "policies:manage" },
  { href: "/settings/api-keys", label: "API keys", needs: "keys:manage" },
  { href: "/settings/connectors", label: "Connectors", needs: "connectors:manage" },
  { href: "/settings/bridges", label: "Bridges", needs: "org:read" },
  { href: "/settings/organization", label: "Organization", needs: "org:read" },
  { href: "/settings/audit", label: "Audit log", needs: "audit:read" },
];

export function Layout({ children }: { children: ReactNode }) {
  const { session, signOut, can } = useSession();
  const [location] = useLocation();
  if (!session) return null;
  const active = (href: string) => (href === "/" ? location === "/" : location.startsWith(href));
  return (
    <div className="shell">
      <header className="topbar">
        <span className="brand">CDIS console</span>
        <span className="who">
          {session.organization.name} <span className="muted">({session.organization.id})</span> · <span data-signed-in-as>{signedInAs(session)}</span> · <span className="role">{session.role.replace("_", " ")}</span>
        </span>
        {session.user && (
          <Link href="/account" className="topbar-link">
            Your account
          </Link>
        )}
        <button type="button" onClick={() => void signOut()}>
          Sign out
        </button>
      </header>
      <nav className="sidenav" aria-label="Main">
        <ul>
          {NAV.filter((item) => can(item.needs)).map((item) => (
            <li key={item.href}>
              <Link href={item.href} aria-current={active(item.href) ? "page" : undefined}>
                {item.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main className="content">{children}</main>
    </div>
  );
}
