// How console sessions expire, travel and resist cross-site requests: the settings' lifetimes,
// the cookie, and the CSRF rule for cookie-authenticated writes.
import { getCookie } from "hono/cookie";
import type { Context } from "hono";
import type { HttpEnv } from "../../../platform/http/http-env";
import { settingsOf } from "../../../platform/settings";
import { forbidden, unauthorized } from "../../../platform/errors";
import type { ConsoleSessionRow } from "../tables";

export const SESSION_COOKIE = "cdis_session";
/** The header the console sends on every write: a cross-site form cannot, and a cross-site script may not without a CORS preflight we refuse. */
export const CSRF_HEADER = "x-cdis-console";

const DEFAULT_IDLE_SECONDS = 30 * 60;
const DEFAULT_MAX_SECONDS = 12 * 60 * 60;
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export interface SessionLifetimes {
  idleSeconds: number;
  maxSeconds: number;
}

function positive(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return value !== undefined && Number.isInteger(n) && n > 0 ? n : fallback;
}

export function sessionLifetimes(env: object): SessionLifetimes {
  const s = settingsOf(env);
  return { idleSeconds: positive(s.CONSOLE_SESSION_IDLE_SECONDS, DEFAULT_IDLE_SECONDS), maxSeconds: positive(s.CONSOLE_SESSION_MAX_SECONDS, DEFAULT_MAX_SECONDS) };
}

/** When the session ends if no further request comes: the earlier of idle and absolute expiry. */
export function sessionEndsAt(session: Pick<ConsoleSessionRow, "lastSeenAt" | "expiresAt">, lifetimes: SessionLifetimes): number {
  return Math.min(Date.parse(session.lastSeenAt) + lifetimes.idleSeconds * 1000, Date.parse(session.expiresAt));
}

/** Throws 401 unless the session is live at `now`. */
export function assertLive(session: ConsoleSessionRow, keyRevokedAt: string | null, lifetimes: SessionLifetimes, now: number): void {
  if (session.revokedAt) throw unauthorized("The console session has ended (signed out)");
  if (keyRevokedAt) throw unauthorized("API key has been revoked");
  if (now >= sessionEndsAt(session, lifetimes)) throw unauthorized("The console session has expired: sign in again");
}

/** The session cookie: HttpOnly, Secure (browsers count http://localhost as secure), SameSite=Strict, whole site. */
export function sessionCookie(id: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${id}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; Secure; SameSite=Strict`;
}

export function clearedSessionCookie(): string {
  return `${SESSION_COOKIE}=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict`;
}

export function sessionIdOf(c: Context): string | undefined {
  return getCookie(c, SESSION_COOKIE) || undefined;
}

/**
 * CSRF: a cookie-authenticated request that changes state must carry the console's header and,
 * when the browser names its Origin, come from this service's own origin.
 */
export function assertSameOriginWrite(c: Context<HttpEnv>): void {
  if (SAFE_METHODS.has(c.req.method)) return;
  if (!c.req.header(CSRF_HEADER)) throw forbidden(`Cookie-authenticated writes need the ${CSRF_HEADER} header (cross-site request refused)`);
  const origin = c.req.header("origin");
  const own = [new URL(c.req.url).origin, c.get("publicBaseUrl") ? new URL(c.get("publicBaseUrl")).origin : undefined];
  if (origin && !own.includes(origin)) throw forbidden(`Origin ${origin} may not write with this session (cross-site request refused)`);
}
