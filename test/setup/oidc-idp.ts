// Vitest globalSetup (Node): an OpenID Connect identity provider on loopback that no one here
// wrote: panva's oidc-provider (certified OpenID Provider), with its development interactions
// (a login form that takes any account id, then a consent form), dynamic client registration
// (each test organization registers its own client and redirect URI, as an admin would at a real
// IdP) and one RS256 signing key published in its JWKS. It signs real ID tokens; the Worker
// verifies them through discovery and the JWKS.
//
// Added in front of it, test controls under /_control/: `accounts` (PUT an account's claims:
// email, email_verified, name, groups; findAccount serves them) and `tamper-id-token` (the next
// token response's ID token has its email changed after signing: what a forged token looks like).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { exportJWK, generateKeyPair } from "jose";
import Provider from "oidc-provider";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    /** The IdP's issuer identifier, http://127.0.0.1:<port> (OUTBOUND_ALLOW lets the Worker reach it). */
    oidcIssuer: string;
  }
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** The token response `body` with its ID token's payload changed (the signature left as it was). */
function tampered(body: Buffer, email: string): Buffer {
  const json = JSON.parse(body.toString("utf8")) as { id_token?: string };
  if (!json.id_token) return body;
  const [header, payload, signature] = json.id_token.split(".");
  const claims = JSON.parse(Buffer.from(payload ?? "", "base64url").toString("utf8")) as Record<string, unknown>;
  claims.email = email;
  json.id_token = [header, Buffer.from(JSON.stringify(claims)).toString("base64url"), signature].join(".");
  return Buffer.from(JSON.stringify(json));
}

/** Buffers what oidc-provider writes to `res` and sends `change(body)` instead. */
function rewriting(res: ServerResponse, change: (body: Buffer) => Buffer): void {
  const chunks: Buffer[] = [];
  const end = res.end.bind(res);
  res.write = ((chunk: unknown) => {
    if (chunk) chunks.push(Buffer.from(chunk as string));
    return true;
  }) as ServerResponse["write"];
  res.end = ((chunk?: unknown) => {
    if (chunk && typeof chunk !== "function") chunks.push(Buffer.from(chunk as string));
    const body = change(Buffer.concat(chunks));
    if (!res.headersSent) res.setHeader("content-length", body.length);
    return end(body);
  }) as ServerResponse["end"];
}

export default async function setup(project: TestProject) {
  const accounts = new Map<string, Record<string, unknown>>();
  const tamperings: string[] = [];
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the IdP has no port");
  const issuer = `http://127.0.0.1:${address.port}`;

  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const provider = new Provider(issuer, {
    jwks: { keys: [{ ...(await exportJWK(privateKey)), kid: "test-idp-1", alg: "RS256", use: "sig" }] },
    features: { devInteractions: { enabled: true }, registration: { enabled: true } },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "given_name", "family_name"], groups: ["groups"] },
    // Every granted claim in the ID token, as Okta and Entra ID put groups there.
    conformIdTokenClaims: false,
    findAccount: async (_ctx: unknown, id: string) => {
      const claims = accounts.get(id);
      return claims ? { accountId: id, claims: async () => ({ sub: id, ...claims }) } : undefined;
    },
    cookies: { keys: ["test-idp-cookie-key"] },
    pkce: { required: () => true },
    ttl: { AuthorizationCode: 60, Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600 },
  });
  // Quiet: a refused request (the tests make some on purpose) is not a test failure.
  provider.on("server_error", (_ctx: unknown, err: Error) => console.error("IdP server_error", err));
  const handle = provider.callback();

  server.on("request", async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", issuer);
    if (url.pathname.startsWith("/_control/")) {
      try {
        const body = JSON.parse((await bodyOf(req)) || "{}") as { id?: string; claims?: Record<string, unknown>; email?: string };
        if (url.pathname === "/_control/accounts" && body.id && body.claims) accounts.set(body.id, body.claims);
        else if (url.pathname === "/_control/tamper-id-token" && body.email) tamperings.push(body.email);
        else return void res.writeHead(404).end();
        return void res.writeHead(204).end();
      } catch (e) {
        return void res.writeHead(400).end(String(e));
      }
    }
    const email = req.method === "POST" && url.pathname === "/token" ? tamperings.shift() : undefined;
    if (email) rewriting(res, (body) => tampered(body, email));
    handle(req, res);
  });

  project.provide("oidcIssuer", issuer);
  return async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
}
