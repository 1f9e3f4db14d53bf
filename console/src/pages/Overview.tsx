// The landing page: the organization, the session's role and where to go next.
import { Link } from "wouter";
import { NAV } from "../components/Layout";
import { useSession } from "../lib/session";

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
