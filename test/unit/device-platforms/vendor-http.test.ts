// A vendor's failed answer as the sync log and the webhook event log name it: Cloudflare's answers
// for a vendor it could not reach (530 with error 1016 for a name that does not resolve, its 52x
// codes) say the cause, not a bare status.
import { describe, expect, it } from "vitest";
import { failureOf } from "../../../src/features/devices/platforms/vendor-http";

describe("failureOf", () => {
  it("names Cloudflare's origin failures: DNS (530/1016) is unreachable, the others retry", async () => {
    expect(await failureOf(new Response("error code: 1016", { status: 530 }), "GET /v2/usercollection/daily_sleep")).toMatchObject({
      kind: "unreachable",
      message: "GET /v2/usercollection/daily_sleep: DNS failure: the host name did not resolve (Cloudflare 530, error 1016)",
    });
    expect(await failureOf(new Response("error code: 521", { status: 521 }), "GET /x")).toMatchObject({ kind: "unavailable", message: "GET /x: the server refused the connection (Cloudflare 521)" });
    expect(await failureOf(new Response("", { status: 522 }), "GET /x")).toMatchObject({ kind: "unavailable", message: "GET /x: timeout connecting to the server (Cloudflare 522)" });
    expect(await failureOf(new Response("", { status: 525 }), "GET /x")).toMatchObject({ kind: "unavailable", message: "GET /x: TLS handshake with the server failed (Cloudflare 525)" });
    // A vendor's own 401 and 503 keep their status and answer.
    expect(await failureOf(new Response('{"error":"invalid_token"}', { status: 401 }), "GET /x")).toMatchObject({ kind: "unauthorized", message: 'GET /x: HTTP 401 {"error":"invalid_token"}' });
    expect(await failureOf(new Response("down", { status: 503 }), "GET /x")).toMatchObject({ kind: "unavailable", message: "GET /x: HTTP 503 down" });
  });
});
