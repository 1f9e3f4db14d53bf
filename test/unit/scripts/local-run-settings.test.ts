// What the operator sets for `npm start` / `npm run dev` (PORT, STATE_DIR, LOG_LEVEL), read with
// clear refusals, and the types the bundle's additional modules get from wrangler.toml's rules.
import { LogLevel } from "miniflare";
import { describe, expect, it } from "vitest";
import { moduleType } from "../../../scripts/lib/bundle";
import { DEFAULT_STATE_DIR, credentialsFile, localRunSettings } from "../../../scripts/lib/dev-state";
import { parseLogLevel } from "../../../scripts/lib/log-level";
import { miniflareLogLevel } from "../../../scripts/lib/miniflare-runtime";

describe("local run settings", () => {
  it("defaults to port 8787, wrangler's state directory and info", () => {
    expect(localRunSettings({})).toEqual({ port: 8787, stateDir: DEFAULT_STATE_DIR, logLevel: "info" });
    expect(localRunSettings({ PORT: "", STATE_DIR: "", LOG_LEVEL: "" }).port).toBe(8787);
    expect(localRunSettings({ PORT: "0", STATE_DIR: "run/state", LOG_LEVEL: " WARN " })).toEqual({ port: 0, stateDir: "run/state", logLevel: "warn" });
  });

  it.each([["PORT", "80a"], ["PORT", "70000"], ["LOG_LEVEL", "verbose"], ["LOG_LEVEL", "silent"]])("refuses %s=%s by name", (name, value) => {
    expect(() => localRunSettings({ [name]: value })).toThrow(name);
  });

  it("refuses PORT=0 where the runtime cannot report the free port it got (npm run dev)", () => {
    expect(() => localRunSettings({ PORT: "0" }, { freePort: false })).toThrow("PORT");
    expect(localRunSettings({ PORT: "8788" }, { freePort: false }).port).toBe(8788);
  });

  it("maps each level to Miniflare's", () => {
    expect(["debug", "info", "warn", "error", "none"].map((n) => miniflareLogLevel(parseLogLevel(n)))).toEqual([LogLevel.DEBUG, LogLevel.INFO, LogLevel.WARN, LogLevel.ERROR, LogLevel.NONE]);
  });

  it("keeps the dev credentials beside the state directory", () => {
    expect(credentialsFile("/srv/cdis/.wrangler/state")).toBe("/srv/cdis/.wrangler/dev-credentials.json");
  });
});

describe("bundle module types", () => {
  const rules = [
    { type: "Text" as const, include: ["**/api-reference/dist/browser/standalone.js"], fallthrough: true },
    { type: "ESModule" as const, include: ["**/*.js", "**/*.mjs"] },
    { type: "CompiledWasm" as const, include: ["**/*.wasm"] },
  ];
  const hash = "1f656f6c3b07403e44f91bd824cdca07d3b01851";

  it("types a module by the first rule matching its original file name", () => {
    expect(moduleType(`${hash}-standalone.js`, rules)).toBe("Text");
    expect(moduleType(`${hash}-other.js`, rules)).toBe("ESModule");
    expect(moduleType(`${hash}-lib.wasm`, rules)).toBe("CompiledWasm");
  });

  it("refuses a module no rule matches", () => {
    expect(() => moduleType(`${hash}-data.bin`, rules)).toThrow(/matches no module rule/);
  });
});
