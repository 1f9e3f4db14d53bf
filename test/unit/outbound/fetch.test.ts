// The guarded fetch against a scripted network: it refuses before any request,
// follows redirects itself and checks each hop, and drops credentials across origins.
import { describe, expect, it } from "vitest";
import { guardedFetch, MAX_REDIRECTS } from "../../../src/platform/outbound/fetch";
import { PUBLIC_ONLY, parseOutboundAllow } from "../../../src/platform/outbound/policy";

interface Seen {
  url: string;
  method: string;
  headers: Headers;
  body: string;
  redirect: RequestInit["redirect"];
}

/** A network answering from `routes` (by URL), recording every request it receives. */
function network(routes: Record<string, () => Response>) {
  const seen: Seen[] = [];
  const fetchImpl = (async (input: string, init: RequestInit = {}) => {
    const body = init.body ? await new Response(init.body).text() : "";
    seen.push({ url: input, method: init.method ?? "GET", headers: new Headers(init.headers), body, redirect: init.redirect });
    const route = routes[input];
    if (!route) throw new Error(`unexpected request to ${input}`);
    return route();
  }) as typeof fetch;
  return { seen, fetchImpl };
}

const redirect = (location: string, status = 302) => () => new Response("moved", { status, headers: { location } });

describe("guardedFetch", () => {
  it("refuses a forbidden destination without sending anything", async () => {
    const { seen, fetchImpl } = network({});
    const f = guardedFetch({ policy: PUBLIC_ONLY, fetch: fetchImpl });
    await expect(f("http://169.254.169.254/latest/meta-data/")).rejects.toMatchObject({ code: "DESTINATION_NOT_ALLOWED", status: 400 });
    await expect(f("http://2130706433/")).rejects.toMatchObject({ code: "DESTINATION_NOT_ALLOWED" });
    expect(seen).toHaveLength(0);
  });

  it("refuses a redirect to a forbidden address and never contacts it", async () => {
    const { seen, fetchImpl } = network({ "https://api.example.org/hook": redirect("http://169.254.169.254/latest/meta-data/iam") });
    const f = guardedFetch({ policy: PUBLIC_ONLY, fetch: fetchImpl });
    await expect(f("https://api.example.org/hook")).rejects.toMatchObject({ code: "DESTINATION_NOT_ALLOWED", message: expect.stringContaining("169.254.169.254") });
    expect(seen.map((s) => s.url)).toEqual(["https://api.example.org/hook"]);
    expect(seen[0]?.redirect).toBe("manual");
  });

  it("follows permitted redirects, keeping the method and body on 307 and credentials on the same origin", async () => {
    const { seen, fetchImpl } = network({
      "https://api.example.org/a": redirect("/b", 307),
      "https://api.example.org/b": () => Response.json({ ok: true }),
    });
    const f = guardedFetch({ policy: PUBLIC_ONLY, fetch: fetchImpl });
    const res = await f("https://api.example.org/a", { method: "POST", body: '{"x":1}', headers: { authorization: "Bearer t" } });
    expect(await res.json()).toEqual({ ok: true });
    expect(seen.map((s) => [s.url, s.method, s.body, s.headers.get("authorization")])).toEqual([
      ["https://api.example.org/a", "POST", '{"x":1}', "Bearer t"],
      ["https://api.example.org/b", "POST", '{"x":1}', "Bearer t"],
    ]);
  });

  it("drops credentials, including a connector's own auth header, on a cross-origin hop; 303 becomes GET", async () => {
    const { seen, fetchImpl } = network({
      "https://api.example.org/a": redirect("https://other.example.net/b", 303),
      "https://other.example.net/b": () => new Response("done"),
    });
    const f = guardedFetch({ policy: PUBLIC_ONLY, credentialHeaders: ["X-Api-Key"], fetch: fetchImpl });
    await f("https://api.example.org/a", { method: "POST", body: "secret body", headers: { authorization: "Bearer t", "x-api-key": "k", cookie: "c=1", accept: "text/plain" } });
    const hop = seen[1] as Seen;
    expect([hop.method, hop.body, hop.headers.get("authorization"), hop.headers.get("x-api-key"), hop.headers.get("cookie"), hop.headers.get("accept")]).toEqual([
      "GET", "", null, null, null, "text/plain",
    ]);
  });

  it("stops after a bounded number of hops", async () => {
    const { seen, fetchImpl } = network({ "https://loop.example.org/": redirect("https://loop.example.org/") });
    const f = guardedFetch({ policy: PUBLIC_ONLY, fetch: fetchImpl });
    await expect(f("https://loop.example.org/")).rejects.toMatchObject({ code: "TOO_MANY_REDIRECTS" });
    expect(seen).toHaveLength(MAX_REDIRECTS + 1);
  });

  it("lets an allow-listed on-premises server answer, but not redirect to an address it does not list", async () => {
    const { seen, fetchImpl } = network({
      "http://10.1.2.3/fhir/metadata": () => Response.json({ resourceType: "CapabilityStatement" }),
      "http://10.1.2.3/fhir/go": redirect("http://10.9.9.9/admin"),
    });
    const f = guardedFetch({ policy: parseOutboundAllow("10.1.2.3").policy, fetch: fetchImpl });
    expect((await f("http://10.1.2.3/fhir/metadata")).status).toBe(200);
    await expect(f("http://10.1.2.3/fhir/go")).rejects.toMatchObject({ code: "DESTINATION_NOT_ALLOWED" });
    expect(seen.map((s) => s.url)).not.toContain("http://10.9.9.9/admin");
  });

  it("takes a Request as input (as the AI SDK passes)", async () => {
    const { seen, fetchImpl } = network({ "https://llm.example.org/v1/chat": () => new Response("ok") });
    const f = guardedFetch({ policy: PUBLIC_ONLY, fetch: fetchImpl });
    await f(new Request("https://llm.example.org/v1/chat", { method: "POST", body: "{}", headers: { authorization: "Bearer k" } }));
    expect([seen[0]?.method, seen[0]?.body, seen[0]?.headers.get("authorization")]).toEqual(["POST", "{}", "Bearer k"]);
    await expect(f(new Request("http://[::ffff:a9fe:a9fe]/"))).rejects.toMatchObject({ code: "DESTINATION_NOT_ALLOWED" });
  });
});

describe("guardedFetch with streamBodies", () => {
  const stream = (text: string) => new Response(text).body as ReadableStream<Uint8Array>;

  it("hands a stream body to the network as a stream (never buffered whole), with duplex half", async () => {
    const received: { body: unknown; duplex: unknown }[] = [];
    const fetchImpl = (async (_input: string, init: RequestInit = {}) => {
      received.push({ body: init.body, duplex: (init as { duplex?: string }).duplex });
      return new Response(await new Response(init.body).text());
    }) as typeof fetch;
    const f = guardedFetch({ policy: PUBLIC_ONLY, fetch: fetchImpl, streamBodies: true });
    const res = await f("https://pacs.example.org/studies", { method: "POST", body: stream("instance bytes") });
    expect(await res.text()).toBe("instance bytes");
    expect(received[0]?.body).toBeInstanceOf(ReadableStream);
    expect(received[0]?.duplex).toBe("half");
  });

  it("fails a 307/308 of a streamed body instead of resending a consumed stream; still follows 303", async () => {
    const { fetchImpl } = network({ "https://pacs.example.org/a": redirect("/b", 307), "https://pacs.example.org/c": redirect("/d", 303), "https://pacs.example.org/d": () => new Response("ok") });
    const f = guardedFetch({ policy: PUBLIC_ONLY, fetch: fetchImpl, streamBodies: true });
    await expect(f("https://pacs.example.org/a", { method: "POST", body: stream("x") })).rejects.toMatchObject({ code: "REDIRECT_NOT_REPLAYABLE", status: 502 });
    expect(await (await f("https://pacs.example.org/c", { method: "POST", body: stream("x") })).text()).toBe("ok");
  });
});
