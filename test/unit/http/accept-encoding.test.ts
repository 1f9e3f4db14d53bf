import { describe, expect, it } from "vitest";
import { negotiateEncoding } from "../../../src/platform/http/accept-encoding";

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
