// A vendor's cloud as a fetch function (workerd tests cannot listen on a socket): an OAuth 2.0
// token endpoint (authorization code with optional PKCE, single-use rotating refresh tokens,
// `invalid_grant`, expiring access tokens → 401) plus the vendor's data routes, with 429
// injection. Each platform's mock (oura.ts, whoop.ts, …) adds its documented routes and shapes.
import { createHash, randomBytes } from "node:crypto";

export interface MockUser {
  readonly id: string;
}

interface Grant {
  user: MockUser;
  redirectUri: string;
  challenge?: string;
}

type Handler = (req: Request, user: MockUser, match: RegExpMatchArray) => Response | Promise<Response>;

export interface VendorMockOptions {
  readonly origin: string;
  readonly tokenPath: string;
  readonly revokePath?: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly clientAuth: "basic" | "post";
  /** Refresh tokens are single use and replaced on every refresh (Oura, Garmin, WHOOP). */
  readonly rotate: boolean;
  readonly expiresIn: number;
  readonly pkce?: boolean;
  /** Extra token response fields for the user (Polar `x_user_id`, Fitbit `user_id`). */
  readonly tokenExtras?: (user: MockUser) => Record<string, unknown>;
  /** The access token's text (Suunto issues JWTs naming the user); random by default. */
  readonly accessTokenFor?: (user: MockUser) => string;
  /** No refresh token at all (Polar). */
  readonly noRefresh?: boolean;
  /** A refresh answers without a refresh_token: the one the client holds stays valid (Google). */
  readonly refreshOmitsToken?: boolean;
}

const b64url = (buf: Buffer) => buf.toString("base64url");

export class VendorMock {
  private readonly codes = new Map<string, Grant>();
  private readonly access = new Map<string, { user: MockUser; expiresAt: number }>();
  private readonly refresh = new Map<string, MockUser>();
  private readonly routes: { method: string; path: RegExp; handler: Handler }[] = [];
  private throttle = 0;
  readonly calls: { method: string; path: string }[] = [];
  refreshCalls = 0;
  revoked: string[] = [];

  constructor(readonly o: VendorMockOptions) {}

  /** The user consents: the code the vendor would put on the redirect. */
  consent(user: MockUser, authorizationUrl: string): { code: string; state: string; redirectUri: string } {
    const url = new URL(authorizationUrl);
    const redirectUri = url.searchParams.get("redirect_uri") ?? "";
    const code = b64url(randomBytes(16));
    this.codes.set(code, { user, redirectUri, challenge: url.searchParams.get("code_challenge") ?? undefined });
    return { code, state: url.searchParams.get("state") ?? "", redirectUri };
  }

  route(method: string, path: RegExp, handler: Handler): this {
    this.routes.push({ method, path, handler });
    return this;
  }

  /** The next `n` data calls answer 429 with the vendor's headers. */
  throttleNext(n: number, headers: Record<string, string> = { "retry-after": "7" }): void {
    this.throttle = n;
    this.throttleHeaders = headers;
  }
  private throttleHeaders: Record<string, string> = {};

  /** Every access token of the user stops working (the vendor expired them early). */
  expireAccessTokens(): void {
    for (const v of this.access.values()) v.expiresAt = 0;
  }

  readonly fetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const req = new Request(input, init);
    const url = new URL(req.url);
    if (url.origin !== this.o.origin) return new Response("unknown host", { status: 502 });
    this.calls.push({ method: req.method, path: url.pathname });
    if (req.method === "POST" && url.pathname === this.o.tokenPath) return this.token(req);
    if (this.o.revokePath && url.pathname === this.o.revokePath) {
      this.revoked.push(url.searchParams.get("access_token") ?? new URLSearchParams(await req.text()).get("token") ?? "");
      return new Response(null, { status: 200 });
    }
    const user = this.userOf(req);
    if (!user) return Response.json({ error: "invalid_token" }, { status: 401, headers: { "www-authenticate": 'Bearer error="invalid_token"' } });
    if (this.throttle > 0) {
      this.throttle--;
      return Response.json({ message: "Too Many Requests" }, { status: 429, headers: this.throttleHeaders });
    }
    for (const r of this.routes) {
      const match = url.pathname.match(r.path);
      if (match && r.method === req.method) return r.handler(req, user, match);
    }
    return Response.json({ detail: "Not Found" }, { status: 404 });
  };

  userOf(req: Request): MockUser | undefined {
    const token = req.headers.get("authorization")?.replace(/^Bearer /i, "") ?? "";
    const grant = this.access.get(token);
    return grant && grant.expiresAt > Date.now() ? grant.user : undefined;
  }

  private clientOk(req: Request, form: URLSearchParams): boolean {
    if (this.o.clientAuth === "basic") {
      // As the vendors document it (`curl --user id:secret`): plain base64, no form-encoding.
      const expected = `Basic ${btoa(`${this.o.clientId}:${this.o.clientSecret}`)}`;
      return req.headers.get("authorization") === expected;
    }
    return form.get("client_id") === this.o.clientId && form.get("client_secret") === this.o.clientSecret;
  }

  private issue(user: MockUser, refreshing = false): Response {
    const accessToken = this.o.accessTokenFor?.(user) ?? b64url(randomBytes(18));
    this.access.set(accessToken, { user, expiresAt: Date.now() + this.o.expiresIn * 1000 });
    const body: Record<string, unknown> = { access_token: accessToken, token_type: "bearer", expires_in: this.o.expiresIn, ...this.o.tokenExtras?.(user) };
    if (!this.o.noRefresh && !(refreshing && this.o.refreshOmitsToken)) {
      const refreshToken = b64url(randomBytes(18));
      this.refresh.set(refreshToken, user);
      body.refresh_token = refreshToken;
    }
    return Response.json(body, { headers: { "cache-control": "no-store" } });
  }

  private async token(req: Request): Promise<Response> {
    const form = new URLSearchParams(await req.text());
    if (!this.clientOk(req, form)) return Response.json({ error: "invalid_client" }, { status: 401 });
    const invalidGrant = () => Response.json({ error: "invalid_grant", error_description: "The provided authorization grant is invalid" }, { status: 400 });
    if (form.get("grant_type") === "authorization_code") {
      const grant = this.codes.get(form.get("code") ?? "");
      this.codes.delete(form.get("code") ?? "");
      if (!grant || grant.redirectUri !== form.get("redirect_uri")) return invalidGrant();
      if (this.o.pkce) {
        const verifier = form.get("code_verifier") ?? "";
        if (!grant.challenge || b64url(createHash("sha256").update(verifier).digest()) !== grant.challenge) return invalidGrant();
      }
      return this.issue(grant.user);
    }
    if (form.get("grant_type") === "refresh_token") {
      this.refreshCalls++;
      const token = form.get("refresh_token") ?? "";
      const user = this.refresh.get(token);
      if (!user) return invalidGrant();
      if (this.o.rotate) this.refresh.delete(token);
      return this.issue(user, true);
    }
    return Response.json({ error: "unsupported_grant_type" }, { status: 400 });
  }
}

/** Several mocks behind one fetch, by origin. */
export function mockNetwork(...mocks: VendorMock[]): typeof fetch {
  return async (input, init) => {
    const origin = new URL(input instanceof Request ? input.url : String(input)).origin;
    const mock = mocks.find((m) => m.o.origin === origin);
    return mock ? mock.fetch(input, init) : new Response("no such host", { status: 502 });
  };
}
