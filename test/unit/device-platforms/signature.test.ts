// The signature helpers against Node's own HMAC (an independent implementation), for every
// encoding the vendors use, and the vendors' verifiers on signed, tampered, re-serialised,
// stale and unsigned deliveries.
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { constantTimeEqual, hmacSha256Base64, hmacSha256Hex } from "../../../src/features/devices/platforms/webhooks/signature";
import { oura } from "../../../src/features/devices/platforms/oura/adapter";
import { polar } from "../../../src/features/devices/platforms/polar/adapter";
import { suunto } from "../../../src/features/devices/platforms/suunto/adapter";
import { whoop } from "../../../src/features/devices/platforms/whoop/adapter";
import type { WebhookDelivery } from "../../../src/features/devices/platforms/platform";

const SECRET = "test_client_secret";
const body = '{"event_type":"create","data_type":"daily_sleep","object_id":"8f9a5221","user_id":"oura-user-1","event_time":"2024-01-15T08:00:00+00:00"}';

const delivery = (headers: Record<string, string>, text = body, receivedAt = new Date(1_705_305_600_000)): WebhookDelivery => ({
  method: "POST",
  url: new URL("https://service.example/api/v1/webhooks/devices/x/org"),
  headers: new Headers(headers),
  body: text,
  receivedAt,
});
const creds = { clientId: "id", clientSecret: SECRET };

describe("HMAC helpers", () => {
  it("match Node's HMAC-SHA256 in hex and base64", async () => {
    expect(await hmacSha256Hex(SECRET, body)).toBe(createHmac("sha256", SECRET).update(body).digest("hex"));
    expect(await hmacSha256Base64(SECRET, `1705305600000${body}`)).toBe(createHmac("sha256", SECRET).update(`1705305600000${body}`).digest("base64"));
  });

  it("compare equal strings only", () => {
    expect(constantTimeEqual("abc", "abc")).toBe(true);
    expect(constantTimeEqual("abc", "abd")).toBe(false);
    expect(constantTimeEqual("abc", "abcd")).toBe(false);
    expect(constantTimeEqual("", "")).toBe(true);
  });
});

describe("Oura: x-oura-signature = upper-case hex HMAC(secret, timestamp + body)", () => {
  const ts = "1705305600";
  const sig = createHmac("sha256", SECRET).update(ts + body).digest("hex").toUpperCase();

  it("accepts the vendor's signature", async () => {
    expect(await oura.webhook?.verify(delivery({ "x-oura-signature": sig, "x-oura-timestamp": ts }), creds)).toEqual({ ok: true });
  });
  it("refuses a wrong secret, a tampered or re-serialised body, a stale timestamp and missing headers", async () => {
    const wrong = createHmac("sha256", "other").update(ts + body).digest("hex").toUpperCase();
    const v = oura.webhook!;
    expect((await v.verify(delivery({ "x-oura-signature": wrong, "x-oura-timestamp": ts }), creds)).ok).toBe(false);
    expect((await v.verify(delivery({ "x-oura-signature": sig, "x-oura-timestamp": ts }, body.replace("create", "update")), creds)).ok).toBe(false);
    expect((await v.verify(delivery({ "x-oura-signature": sig, "x-oura-timestamp": ts }, JSON.stringify(JSON.parse(body), null, 1)), creds)).ok).toBe(false);
    expect((await v.verify(delivery({ "x-oura-signature": sig, "x-oura-timestamp": ts }, body, new Date(1_705_305_600_000 + 3_600_000)), creds)).ok).toBe(false);
    expect((await v.verify(delivery({ "x-oura-timestamp": ts }), creds)).ok).toBe(false);
    expect((await v.verify(delivery({ "x-oura-signature": sig }), creds)).ok).toBe(false);
  });
  it("answers the GET challenge only with the configured verification token, and leaves any other to verify's refusal", async () => {
    const get = (q: string) => ({ ...delivery({}), method: "GET", url: new URL(`https://s.example/w?${q}`), body: "" });
    const ok = await oura.webhook?.handshake?.(get("verification_token=vt&challenge=abc"), { ...creds, extra: { webhook_verification_token: "vt" } });
    expect(ok?.status).toBe(200);
    expect(await ok?.json()).toEqual({ challenge: "abc" });
    // A wrong token is not answered by the handshake: the delivery goes on to verify, which refuses
    // it as any unsigned delivery (the route's uniform 401 SIGNATURE_INVALID).
    const wrong = get("verification_token=nope&challenge=abc");
    const withToken = { ...creds, extra: { webhook_verification_token: "vt" } };
    expect(await oura.webhook?.handshake?.(wrong, withToken)).toBeUndefined();
    expect((await oura.webhook!.verify(wrong, withToken)).ok).toBe(false);
  });
});

describe("WHOOP: X-WHOOP-Signature = base64 HMAC(secret, timestamp ms + body)", () => {
  const whoopBody = '{"user_id":10129,"id":"123e4567-e89b-12d3-a456-426614174000","type":"sleep.updated","trace_id":"t-1"}';
  const ts = "1705305600000";
  const sig = createHmac("sha256", SECRET).update(ts + whoopBody).digest("base64");
  const h = (s: string, t = ts) => ({ "x-whoop-signature": s, "x-whoop-signature-timestamp": t });

  it("accepts the vendor's signature and refuses everything else", async () => {
    const v = whoop.webhook!;
    expect(await v.verify(delivery(h(sig), whoopBody), creds)).toEqual({ ok: true });
    expect((await v.verify(delivery(h(sig), whoopBody), { ...creds, clientSecret: "other" })).ok).toBe(false);
    expect((await v.verify(delivery(h(sig), whoopBody.replace("10129", "10130")), creds)).ok).toBe(false);
    expect((await v.verify(delivery(h(sig, "1705300000000"), whoopBody), creds)).ok).toBe(false);
    expect((await v.verify(delivery({}, whoopBody), creds)).ok).toBe(false);
  });
  it("reads updated and deleted events and ignores unknown types", () => {
    expect(whoop.webhook?.events(JSON.parse(whoopBody))).toEqual([{ platformUserId: "10129", action: "upsert", dataType: "sleep", objectId: "123e4567-e89b-12d3-a456-426614174000" }]);
    expect(whoop.webhook?.events({ user_id: 1, id: 5, type: "recovery.deleted" })).toEqual([{ platformUserId: "1", action: "delete", dataType: "recovery", objectId: "5" }]);
    expect(whoop.webhook?.events({ user_id: 1, id: 5, type: "body.updated" })).toEqual([]);
  });
});

// The reference's test vectors (wearables.md 1, "Signature schemes at a glance"; secret
// `test_client_secret`). Its `vectors.mjs` with the exact bodies is not published with it: the
// bodies below are the reference's own example payloads, and each reproduces the reference's
// digest. WHOOP's digest is given in full; Polar's and Suunto's only as first…last digits, which
// is what is checked. Oura's vector (`64F497D5…06BAB0E6`) is given without its body or timestamp
// and could not be reproduced, so Oura is tested against Node's HMAC above. Garmin signs nothing
// and Google Health signs with ECDSA (no vector); Fitbit's (legacy, SHA-1) and Terra's are for
// platforms this service does not integrate.
describe("the reference's test vectors", () => {
  it("WHOOP: base64 HMAC(secret, timestamp + body) is HqrOdNk7…VyP0= in full, and the verifier accepts it", async () => {
    const ts = "1748241241000";
    const whoopBody = '{"user_id":10129,"id":"ecfc6a15-4661-442f-a9a4-f160dd7afae8","type":"sleep.updated","trace_id":"e369c784-5100-49e8-8098-75d35c47b31b"}';
    const vector = "HqrOdNk7edrilyDPPstLzI9L97ttliL3HIj5bWyVyP0=";
    expect(await hmacSha256Base64(SECRET, ts + whoopBody)).toBe(vector);
    const headers = { "x-whoop-signature": vector, "x-whoop-signature-timestamp": ts };
    expect(await whoop.webhook?.verify(delivery(headers, whoopBody, new Date(Number(ts))), creds)).toEqual({ ok: true });
  });

  it("Polar: hex HMAC(signature_secret_key, body) is 33b080f9…3402c1f for the reference's EXERCISE notification", async () => {
    const polarBody = '{"event":"EXERCISE","user_id":475,"entity_id":"aQlC83","timestamp":"2024-01-15T14:22:24Z","url":"https://www.polaraccesslink.com/v3/exercises/aQlC83"}';
    const signature = await hmacSha256Hex(SECRET, polarBody);
    expect(signature).toMatch(/^33b080f9[0-9a-f]{49}3402c1f$/);
    const extra = { webhook_signature_secret: SECRET };
    expect(await polar.webhook?.verify(delivery({ "polar-webhook-signature": signature }, polarBody), { ...creds, extra })).toEqual({ ok: true });
    expect((await polar.webhook?.verify(delivery({ "polar-webhook-signature": signature }, polarBody.replace("475", "476")), { ...creds, extra }))?.ok).toBe(false);
  });

  it("Suunto: hex HMAC(notification secret, body) is d6b3a7c4…d065d88 for a WORKOUT_CREATED naming the workout", async () => {
    const suuntoBody = '{"type":"WORKOUT_CREATED","username":"johndoe123","workout":{"workoutKey":"67604889401b942184624cb8"}}';
    const signature = await hmacSha256Hex(SECRET, suuntoBody);
    expect(signature).toMatch(/^d6b3a7c4[0-9a-f]{49}d065d88$/);
    const extra = { webhook_secret: SECRET };
    expect(await suunto.webhook?.verify(delivery({ "x-hmac-sha256-signature": signature }, suuntoBody), { ...creds, extra })).toEqual({ ok: true });
    expect((await suunto.webhook?.verify(delivery({ "x-hmac-sha256-signature": signature }, suuntoBody), { ...creds, extra: { webhook_secret: "other" } }))?.ok).toBe(false);
  });
});
