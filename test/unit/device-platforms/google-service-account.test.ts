// The service-account pieces without HTTP servers: the JSON key file read, the JWT bearer
// assertion's header and claims and its RS256 signature checked with Node's crypto, and what the
// subscriber does with Google's long-running Operations (done with an error → a refusal naming
// Google's message; not done → PENDING) through a scripted fetch.
import { createPublicKey, generateKeyPairSync, verify } from "node:crypto";
import { describe, expect, it } from "vitest";
import { CLOUD_PLATFORM_SCOPE, parseServiceAccountKey, signAssertion } from "../../../src/features/devices/platforms/google-health/service-account";
import { googleSubscriber, subscriberIdOf } from "../../../src/features/devices/platforms/google-health/subscriber";

const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
const keyFile = JSON.stringify({ type: "service_account", project_id: "proj-1", private_key_id: "kid-1", private_key: pem, client_email: "sa@proj-1.iam.gserviceaccount.com" });
const json = (part: string) => JSON.parse(Buffer.from(part, "base64url").toString("utf8"));

describe("service account key and assertion", () => {
  it("reads the JSON key file; anything else is no key", () => {
    expect(parseServiceAccountKey(keyFile)).toMatchObject({ clientEmail: "sa@proj-1.iam.gserviceaccount.com", privateKeyId: "kid-1", projectId: "proj-1" });
    expect(parseServiceAccountKey("{not json")).toBeUndefined();
    expect(parseServiceAccountKey(JSON.stringify({ client_email: "x" }))).toBeUndefined();
    expect(parseServiceAccountKey(undefined)).toBeUndefined();
  });

  it("signs {iss, scope, aud, iat, exp = iat + 3600} with RS256, verifiable with the public key", async () => {
    const key = parseServiceAccountKey(keyFile)!;
    const jwt = await signAssertion(key, "https://oauth2.googleapis.com/token", CLOUD_PLATFORM_SCOPE, 1_790_000_000);
    const [h = "", c = "", s = ""] = jwt.split(".");
    expect(json(h)).toEqual({ alg: "RS256", typ: "JWT", kid: "kid-1" });
    expect(json(c)).toEqual({ iss: "sa@proj-1.iam.gserviceaccount.com", scope: "https://www.googleapis.com/auth/cloud-platform", aud: "https://oauth2.googleapis.com/token", iat: 1_790_000_000, exp: 1_790_003_600 });
    expect(verify("sha256", Buffer.from(`${h}.${c}`), createPublicKey(publicKey.export({ type: "spki", format: "pem" })), Buffer.from(s, "base64url"))).toBe(true);
  });

  it("subscriber ids fit Google's pattern and differ per organization", async () => {
    const [a, b] = await Promise.all([subscriberIdOf("org-a"), subscriberIdOf("org-b")]);
    expect(a).toMatch(/^[a-z]([a-z0-9-]{2,34}[a-z0-9])$/);
    expect(a).toHaveLength(36);
    expect(a).not.toBe(b);
  });
});

describe("the subscriber's Operations", () => {
  const scripted = (operation: Record<string, unknown>) => {
    const seen: string[] = [];
    const fetch = (async (url: string, init?: RequestInit) => {
      seen.push(`${init?.method ?? "GET"} ${new URL(url).pathname}`);
      if (url.endsWith("/token")) return Response.json({ access_token: "sa-token" });
      if ((init?.method ?? "GET") === "GET") return Response.json({ subscribers: [] });
      return Response.json(operation);
    }) as typeof globalThis.fetch;
    const call = { credentials: { extra: { service_account_key: keyFile, webhook_authorization: "Bearer s", token_url: "https://t.test/token", api_base_url: "https://api.test" } }, fetch };
    return { call, seen };
  };
  const target = { orgId: "org-1", endpointUri: "https://cdis.example/api/v1/webhooks/devices/activity_tracker/org-1" };

  it("not done yet: PENDING, with what was asked for", async () => {
    const { call, seen } = scripted({ name: "operations/1", done: false });
    expect(await googleSubscriber.put(call, target)).toMatchObject({ state: "PENDING", created: true, endpointUri: target.endpointUri, dataTypes: ["altitude", "distance", "floors", "sleep", "steps", "weight"] });
    expect(seen).toEqual(["POST /token", "GET /v4/projects/proj-1/subscribers", "POST /v4/projects/proj-1/subscribers"]);
  });

  it("done with an error: Google's refusal, with its message and code", async () => {
    const { call } = scripted({ name: "operations/2", done: true, error: { code: 9, message: "Endpoint verification failed" } });
    await expect(googleSubscriber.put(call, target)).rejects.toMatchObject({ kind: "invalid", message: expect.stringContaining("Endpoint verification failed (code 9)") });
  });
});
