// The signed-in session (who am I) for every component, plus sign-in (a user's email and
// password, or an API key) and sign-out (at the identity provider too, for a session single
// sign-on opened). What is typed at sign-in goes to the service once and is
// never kept: the browser holds only the HttpOnly cookie the service sets, which scripts cannot read.
import { createContext, type ReactNode, useCallback, useContext, useEffect, useState } from "react";
import type { components } from "../../../clients/typescript/api.generated";
import { ApiFailure, api, SESSION_ENDED } from "./api";

/** GET /api/v1/console/session: bound to a user (password sign-in) or to an API key. */
export type ConsoleSession = components["schemas"]["ConsoleSession"];

/** POST /api/v1/auth/sign-in's answer for a user with two-factor sign-in: no session yet. */
export type SecondFactorChallenge = components["schemas"]["SecondFactorRequired"];

/** Who the session is, in words: the user's name and email, or the key's name. */
export function signedInAs(session: ConsoleSession): string {
  if (session.user) return `${session.user.name} (${session.user.email})`;
  return session.key ? `key ${session.key.name}` : "unknown";
}

interface SessionState {
  session: ConsoleSession | null;
  /** Why the last session ended, shown on the sign-in page. */
  endedBecause: string | null;
  signIn(organizationId: string, apiKey: string): Promise<void>;
  /** Signed in, or the challenge of the second step when the user has two-factor sign-in on. */
  signInWithPassword(organizationId: string, email: string, password: string): Promise<SecondFactorChallenge | null>;
  completeSecondFactor(organizationId: string, challenge: string, proof: { code: string } | { recovery_code: string }): Promise<void>;
  signOut(): Promise<void>;
  can(permission: string): boolean;
}

const SessionContext = createContext<SessionState | null>(null);

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error("useSession outside SessionProvider");
  return state;
}

export function SessionProvider({ children, loading }: { children: ReactNode; loading: ReactNode }) {
  const [session, setSession] = useState<ConsoleSession | null | undefined>(undefined);
  const [endedBecause, setEndedBecause] = useState<string | null>(() =>
    new URLSearchParams(window.location.search).get("signed_out") === "sso" ? "You signed out, at your identity provider too." : null,
  );

  useEffect(() => {
    api<ConsoleSession>("/api/v1/console/session", { quiet401: true })
      .then(setSession)
      .catch(() => setSession(null));
    const ended = (e: Event) => {
      setEndedBecause((e as CustomEvent<string>).detail);
      setSession(null);
    };
    window.addEventListener(SESSION_ENDED, ended);
    return () => window.removeEventListener(SESSION_ENDED, ended);
  }, []);

  const signIn = useCallback(async (organizationId: string, apiKey: string) => {
    const s = await api<ConsoleSession>("/api/v1/console/session", { method: "POST", body: { organization_id: organizationId, api_key: apiKey }, quiet401: true });
    setEndedBecause(null);
    setSession(s);
  }, []);

  const signInWithPassword = useCallback(async (organizationId: string, email: string, password: string) => {
    const s = await api<ConsoleSession | SecondFactorChallenge>("/api/v1/auth/sign-in", { method: "POST", body: { organization_id: organizationId, email, password }, quiet401: true });
    if ("challenge" in s) return s;
    setEndedBecause(null);
    setSession(s);
    return null;
  }, []);

  const completeSecondFactor = useCallback(async (organizationId: string, challenge: string, proof: { code: string } | { recovery_code: string }) => {
    const s = await api<ConsoleSession>("/api/v1/auth/sign-in/totp", { method: "POST", body: { organization_id: organizationId, challenge, ...proof }, quiet401: true });
    setEndedBecause(null);
    setSession(s);
  }, []);

  const signOut = useCallback(async () => {
    let endSessionUrl: string | null = null;
    try {
      // A user's session ends at the identity provider too when single sign-on opened it.
      if (session?.user) endSessionUrl = (await api<{ end_session_url: string | null }>("/api/v1/users/me/sign-out", { method: "POST", quiet401: true })).end_session_url;
      else await api("/api/v1/console/session", { method: "DELETE", quiet401: true });
    } catch (e) {
      // Already over on the service's side: the outcome the user asked for.
      if (!(e instanceof ApiFailure && e.status === 401)) throw e;
    }
    if (endSessionUrl) {
      // The IdP ends its session and sends the browser back to /?signed_out=sso.
      window.location.assign(endSessionUrl);
      return;
    }
    setEndedBecause("You signed out.");
    setSession(null);
  }, [session]);

  const can = useCallback((permission: string) => session?.permissions.includes(permission) ?? false, [session]);

  if (session === undefined) return <>{loading}</>;
  return <SessionContext.Provider value={{ session, endedBecause, signIn, signInWithPassword, completeSecondFactor, signOut, can }}>{children}</SessionContext.Provider>;
}
