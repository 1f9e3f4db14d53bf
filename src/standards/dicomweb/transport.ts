// How the client reaches a server: every request goes through the outbound guard
// (src/outbound/fetch.ts), with the configured auth added. A pipeline node built on a
// connector passes the connector client's fetch instead, which does the same.
import { ApiError } from "../../platform/errors";
import { type TokenCache, clientCredentialsToken } from "../../platform/outbound/client-credentials";
import { type GuardedFetch, guardedFetch } from "../../platform/outbound/fetch";
import { type OutboundPolicy, outboundPolicyOf } from "../../platform/outbound/policy";
import { DicomwebError, networkFailure } from "./errors";

export type DicomwebAuth =
  | { kind: "none" }
  | { kind: "basic"; username: string; password: string }
  | { kind: "bearer"; token: string }
  | { kind: "oauth2_client_credentials"; tokenUrl: string; clientId: string; clientSecret: string; scope?: string };

/** Sends one request; answers whatever the server answered (statuses are the client's job). */
export type DicomwebTransport = (url: string, init: RequestInit) => Promise<Response>;

// Keyed by a hash of the whole grant (secret included): two callers share a token only when
// they hold the same credentials, so one org can never be handed a token fetched for another.
const tokens: TokenCache = new Map();

async function grantKey(auth: Extract<DicomwebAuth, { kind: "oauth2_client_credentials" }>): Promise<string> {
  const text = JSON.stringify([auth.tokenUrl, auth.clientId, auth.clientSecret, auth.scope ?? ""]);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function authorization(auth: DicomwebAuth, fetch: GuardedFetch): Promise<string | undefined> {
  switch (auth.kind) {
    case "basic":
      return `Basic ${btoa(`${auth.username}:${auth.password}`)}`;
    case "bearer":
      return `Bearer ${auth.token}`;
    case "oauth2_client_credentials": {
      const fail = (message: string) => new DicomwebError("DICOMWEB_UNAUTHORIZED", `OAuth2 token: ${message}`);
      return `Bearer ${await clientCredentialsToken(fetch, auth, tokens, await grantKey(auth), fail)}`;
    }
    default:
      return undefined;
  }
}

export interface GuardedTransportOptions {
  policy: OutboundPolicy;
  auth?: DicomwebAuth;
  /** The network under the guard; globalThis.fetch by default (tests pass a fake). */
  network?: typeof fetch;
}

/** A transport through the outbound guard with `auth`; network failures become DICOMWEB_UNREACHABLE. */
export function guardedTransport(options: GuardedTransportOptions): DicomwebTransport {
  // STOW bodies are streamed, not buffered: a study can be larger than a Worker's memory.
  const fetch = guardedFetch({ policy: options.policy, streamBodies: true, ...(options.network ? { fetch: options.network } : {}) });
  const auth = options.auth ?? { kind: "none" };
  return async (url, init) => {
    try {
      const headers = new Headers(init.headers);
      const value = await authorization(auth, fetch);
      if (value) headers.set("authorization", value);
      return await fetch(url, { ...init, headers });
    } catch (e) {
      if (e instanceof ApiError) throw e; // the guard's refusal, or an auth failure: already typed
      throw networkFailure(url, e);
    }
  };
}

/** The deployment's transport (its OUTBOUND_ALLOW), for callers holding the Worker env. */
export const dicomwebTransportFor = (env: object, auth?: DicomwebAuth): DicomwebTransport =>
  guardedTransport({ policy: outboundPolicyOf(env), ...(auth ? { auth } : {}) });
