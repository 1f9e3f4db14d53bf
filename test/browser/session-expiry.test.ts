// Session expiry in the browser: this file runs its own service with a 3-second idle timeout
// (CONSOLE_SESSION_IDLE_SECONDS), since the shared one keeps the default half hour.
import type { Browser } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningWorker, startWorker } from "../../bench/lib/worker";
import { expectAccessible, screenshot, signIn, textOf } from "./harness";
import { launchChromium } from "./setup/service";

let worker: RunningWorker;
let browser: Browser;

beforeAll(async () => {
  // Its own runtime (a 3 s idle limit); on a loaded machine the start may take most of the hook budget.
  worker = await startWorker({ runtime: "miniflare", startTimeoutMs: 170_000, vars: { CONSOLE_SESSION_IDLE_SECONDS: "3" } });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await worker?.stop();
});

describe("console session expiry", () => {
  it("slides while the user works, then after the idle timeout the next request returns to sign-in with the reason", async () => {
    const page = await browser.newPage();
    await page.goto(`${worker.url}/`, { waitUntil: "networkidle0" });
    await signIn(page, worker.orgId, worker.apiKey);
    // Activity inside the idle window keeps the session alive past the timeout.
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 1_500));
      expect(await page.evaluate(async () => (await fetch("/api/v1/console/session")).status)).toBe(200);
    }
    await new Promise((r) => setTimeout(r, 4_000));
    await page.click("nav[aria-label=Main] a[href='/pipelines']");
    await page.waitForSelector("input[name=organization]");
    expect(await textOf(page, ".notice")).toMatch(/expired/);
    await screenshot(page, "session-expired");
    await expectAccessible(page);
  });
});
