// The body limit's reads of the client's body: a connection that ends mid-body is the client's
// doing, answered 400 BODY_INCOMPLETE in the documented shape, not an unhandled 500.
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { bodyLimit } from "../../../src/platform/http/body-limit";
import { onError } from "../../../src/platform/http/error-handler";
import type { HttpEnv } from "../../../src/platform/http/http-env";

function app() {
  const a = new Hono<HttpEnv>();
  a.onError(onError);
  a.post("/api/echo", bodyLimit, async (c) => c.text(await c.req.text()));
  return a;
}

/** A body whose stream fails after `sent`, as workerd's does when the client closes mid-body. */
function cutBody(sent: string): ReadableStream<Uint8Array> {
  let first = true;
  return new ReadableStream({
    pull(controller) {
      if (first) {
        first = false;
        controller.enqueue(new TextEncoder().encode(sent));
      } else controller.error(new Error("Network connection lost."));
    },
  });
}

const send = (body: BodyInit, headers: Record<string, string>) =>
  app().request("/api/echo", { method: "POST", body, headers, duplex: "half" } as RequestInit, { LOG_LEVEL: "error" });

describe("bodyLimit and a body cut short", () => {
  it("answers 400 BODY_INCOMPLETE for a chunked body and for a JSON body whose connection closes", async () => {
    const cases: Record<string, string>[] = [{ "content-type": "application/json", "transfer-encoding": "chunked" }, { "content-type": "application/json", "content-length": "100" }];
    for (const headers of cases) {
      const res = await send(cutBody('{"a":'), headers);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("BODY_INCOMPLETE");
    }
  });

  it("passes a whole body through", async () => {
    const res = await send('{"a":1}', { "content-type": "application/json" });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"a":1}');
  });
});
