import { describe, expect, it } from "vitest";
import { clientAcceptEncoding, negotiateEncoding } from "../../../src/platform/http/accept-encoding";

const pick = (header: string | undefined) => negotiateEncoding(header, ["gzip", "identity"]);

describe("content-coding negotiation", () => {
  it("compresses only for a client that accepts gzip", () => {
    expect(pick(undefined)).toBe("identity");
    expect(pick("")).toBe("identity");
    expect(pick("br, deflate")).toBe("identity");
    expect(pick("gzip")).toBe("gzip");
    expect(pick("GZIP;Q=0.5")).toBe("gzip");
    expect(pick("x-gzip")).toBe("gzip");
    expect(pick("gzip, deflate, br")).toBe("gzip");
    expect(pick("*")).toBe("gzip");
  });

  it("honours q=0 and prefers the higher weight", () => {
    expect(pick("gzip;q=0")).toBe("identity");
    expect(pick("gzip;q=0, *")).toBe("identity");
    expect(pick("*, gzip;q=0")).toBe("identity");
    expect(pick("gzip;q=0.2, identity;q=0.8")).toBe("identity");
    expect(pick("gzip;q=0.8, identity;q=0.2")).toBe("gzip");
    expect(pick("identity;q=0, gzip")).toBe("gzip");
  });

  it("accepts nothing when identity is excluded and gzip not offered", () => {
    expect(pick("identity;q=0")).toBeUndefined();
    expect(pick("*;q=0")).toBeUndefined();
    expect(pick("br, identity;q=0")).toBeUndefined();
  });
});

describe("the client's own Accept-Encoding", () => {
  // As Cloudflare's edge and Miniflare hand a Worker its request: the header replaced, the client's value in cf.
  const atTheEdge = (clientValue: string) => Object.defineProperty(new Request("http://x/", { headers: { "accept-encoding": "br, gzip" } }), "cf", { value: { clientAcceptEncoding: clientValue } });

  it("is the edge's record of what the client sent, not the header the runtime put there", () => {
    expect(clientAcceptEncoding(atTheEdge(""))).toBeUndefined();
    expect(clientAcceptEncoding(atTheEdge("identity"))).toBe("identity");
    expect(clientAcceptEncoding(atTheEdge("gzip, deflate"))).toBe("gzip, deflate");
    expect(negotiateEncoding(clientAcceptEncoding(atTheEdge("")), ["gzip", "identity"])).toBe("identity");
  });

  it("is the request's own header when no edge stood in front (a test calling the app)", () => {
    expect(clientAcceptEncoding(new Request("http://x/", { headers: { "accept-encoding": "gzip" } }))).toBe("gzip");
    expect(clientAcceptEncoding(new Request("http://x/"))).toBeUndefined();
  });
});
