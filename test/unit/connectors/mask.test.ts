// What connector and device-integration responses show of a credential (README, "Security"): "****"
// plus the last four characters of a value of 16 characters or more, "****" alone otherwise.
import { describe, expect, it } from "vitest";
import { HINT_MIN_LENGTH, maskCredentials } from "../../../src/features/connectors/crypto";

describe("maskCredentials", () => {
  it("shows the last four characters of a long value only, never more than a quarter of it", () => {
    expect(maskCredentials({ client_secret: "very-secret-value-9876", client_id: "client-123", token: "abcdefghijklmnop", password: "" })).toEqual({
      client_secret: "****9876",
      client_id: "****",
      token: "****mnop",
      password: "****",
    });
    expect(maskCredentials({ x: "a".repeat(HINT_MIN_LENGTH - 1) })).toEqual({ x: "****" });
  });
});
