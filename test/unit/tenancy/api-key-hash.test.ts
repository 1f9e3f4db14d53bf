// API keys are stored and looked up by their SHA-256 as lower-case hex (FIPS 180-2 test vectors).
import { describe, expect, it } from "vitest";
import { hashApiKey } from "../../../src/features/tenancy/auth/api-key-crypto";

describe("hashApiKey", () => {
  it("is the SHA-256 of the key's UTF-8, as 64 lower-case hex digits", async () => {
    expect(await hashApiKey("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(await hashApiKey("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(await hashApiKey("é")).toMatch(/^[0-9a-f]{64}$/);
  });
});
