// What every browser test does: a fresh browser context (its own cookies) on the shared Chromium,
// sign-in through the form, screenshots as artifacts under test-results/console/, an axe-core scan
// that fails on serious or critical violations, and a watch for CSP violations.
import { mkdirSync } from "node:fs";
import path from "node:path";
import axe from "axe-core";
import puppeteer, { type Browser, type BrowserContext, type Page } from "puppeteer-core";
import { afterEach, expect, inject } from "vitest";
import type { BrowserOrgs } from "./setup/service";

const ARTIFACTS = path.resolve(import.meta.dirname, "../../test-results/console");

export const consoleUrl = () => inject("consoleUrl");

/**
 * The running file's two organizations on the shared service (test/browser/setup/service.ts seeds a
 * pair per browser file): A with an administrator and a clinician key, B for cross-tenant checks.
 */
export function fileOrgs(): BrowserOrgs {
  const file = path.basename(expect.getState().testPath ?? "");
  const orgs = inject("browserOrgs")[file];
  if (!orgs) throw new Error(`${file || "this file"} has no organizations on the shared service (test/browser/setup/service.ts seeds them for test/browser's files)`);
  return orgs;
}

let shared: Browser | undefined;

async function browser(): Promise<Browser> {
  shared ??= await puppeteer.connect({ browserWSEndpoint: inject("browserWs") });
  return shared;
}

export interface ConsolePage {
  page: Page;
  context: BrowserContext;
  /** Console messages that report a Content-Security-Policy violation. */
  cspViolations: string[];
  close(): Promise<void>;
}

/** A new isolated browser context (no cookies shared with other tests) with one page. */
export async function openConsole(base = consoleUrl()): Promise<ConsolePage> {
  const context = await (await browser()).createBrowserContext();
  const page = await context.newPage();
  const cspViolations: string[] = [];
  page.on("console", (msg) => {
    if (/Content Security Policy/i.test(msg.text())) cspViolations.push(msg.text());
  });
  await page.setViewport({ width: 1280, height: 800 });
  await page.goto(`${base}/`, { waitUntil: "networkidle0" });
  return { page, context, cspViolations, close: () => context.close() };
}

/**
 * For a test file: `open()` gives each test its console pages (a test may open several: a user's
 * and an administrator's); after each test every page's context closes, so none keeps polling the
 * service into later tests, and any CSP violation one reported fails the test.
 */
export function consolePerTest(): { open(base?: string): Promise<Page> } {
  let opened: ConsolePage[] = [];
  afterEach(async () => {
    const violations = opened.flatMap((p) => p.cspViolations);
    await Promise.all(opened.map((p) => p.close()));
    opened = [];
    expect(violations).toEqual([]);
  });
  return {
    async open(base?: string) {
      const page = await openConsole(base);
      opened.push(page);
      return page.page;
    },
  };
}

/** Switches the sign-in page to its API key form (the password form is the default). */
export async function chooseApiKeySignIn(page: Page): Promise<void> {
  await page.waitForSelector("input[name=organization]");
  if (!(await page.$("input[name=api_key]"))) await page.click("button[data-switch-to=key]");
  await page.waitForSelector("input[name=api_key]");
}

/** Signs in through the API key form and waits for the signed-in frame. */
export async function signIn(page: Page, orgId: string, apiKey: string): Promise<void> {
  await chooseApiKeySignIn(page);
  await page.type("input[name=organization]", orgId);
  await page.type("input[name=api_key]", apiKey);
  await Promise.all([page.waitForSelector("nav[aria-label=Main]"), page.click("button[type=submit]")]);
}

/** Types the email and password sign-in form and submits it (the caller waits for what follows). */
export async function submitPasswordSignIn(page: Page, orgId: string, email: string, password: string): Promise<void> {
  await page.waitForSelector("input[name=email]");
  await page.type("input[name=organization]", orgId);
  await page.type("input[name=email]", email);
  await page.type("input[name=password]", password);
  await page.click("button[type=submit]");
}

/** Follows a link or types an address the way a user would, then waits for the page to settle. */
export async function visit(page: Page, pathname: string): Promise<void> {
  await page.goto(`${consoleUrl()}${pathname}`, { waitUntil: "networkidle0" });
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * Runs axe-core in the page (evaluated through DevTools, which the page's CSP does not govern)
 * and fails on any serious or critical violation, naming rule and elements.
 */
export async function expectAccessible(page: Page): Promise<void> {
  await page.evaluate(axe.source);
  const violations = (await page.evaluate(async () => {
    const result = await (window as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe.run();
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  })) as AxeViolation[];
  const blocking = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(blocking.map((v) => `${v.impact} ${v.id}: ${v.help} at ${JSON.stringify(v.nodes.map((n) => n.target))}`)).toEqual([]);
}

/** The visible text of the first element matching `selector`. */
export async function textOf(page: Page, selector: string): Promise<string> {
  await page.waitForSelector(selector);
  return page.$eval(selector, (el) => el.textContent ?? "");
}

/** The texts of the main navigation's links. */
export async function navLinks(page: Page): Promise<string[]> {
  return page.$$eval("nav[aria-label=Main] a", (links) => links.map((a) => a.textContent ?? ""));
}

/** Replaces a field's text as a user would: select all, delete, type. */
/**
 * Clicks an element with the mouse once it has stopped moving and is the topmost element at its
 * centre. A plain `page.click` measures the element and then moves the mouse; a layout change
 * in between (a panel swapped by the click before, a card growing with its errors) lands the
 * click on whatever moved there instead (CI saw a port click press "Remove node").
 */
export async function clickWhenStill(page: Page, selector: string): Promise<void> {
  await page.waitForSelector(selector, { visible: true });
  await page.$eval(
    selector,
    (el, sel) => {
      const r = el.getBoundingClientRect();
      if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) el.scrollIntoView({ block: "center", inline: "nearest" });
      delete (window as unknown as { __still?: Record<string, string> }).__still?.[sel];
    },
    selector,
  );
  const point = await page.waitForFunction(
    (sel) => {
      const el = document.querySelector(sel);
      if (!el) return false;
      const w = window as unknown as { __still?: Record<string, string> };
      w.__still ??= {};
      const r = el.getBoundingClientRect();
      const box = `${r.x},${r.y},${r.width},${r.height}`;
      const wasStill = w.__still[sel] === box;
      w.__still[sel] = box;
      if (!wasStill || r.width === 0) return false;
      const x = r.x + r.width / 2;
      const y = r.y + r.height / 2;
      const top = document.elementFromPoint(x, y);
      return top !== null && (top === el || el.contains(top)) ? { x, y } : false;
    },
    { polling: "raf" },
    selector,
  );
  const { x, y } = (await point.jsonValue()) as { x: number; y: number };
  await page.mouse.click(x, y);
}

export async function replaceText(page: Page, selector: string, text: string): Promise<void> {
  await page.click(selector);
  await page.keyboard.down("Control");
  await page.keyboard.press("a");
  await page.keyboard.up("Control");
  await page.keyboard.press("Backspace");
  await page.type(selector, text);
}

const DOC_SCREENSHOTS = path.resolve(import.meta.dirname, "../../docs/screenshots");

/**
 * The README's screenshots, refreshed only on request (`CONSOLE_DOC_SCREENSHOTS=1 npm run
 * test:browser`) so ordinary runs never touch committed files: the visible viewport, as PNG.
 */
export async function docScreenshot(page: Page, name: string): Promise<void> {
  if (process.env.CONSOLE_DOC_SCREENSHOTS !== "1") return;
  mkdirSync(DOC_SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(DOC_SCREENSHOTS, `${name}.png`) });
}

/** The organization A administrator's API call, to set up data a page then shows (GET, or POST with `body`). */
export async function adminApi(path: string, body?: unknown): Promise<Record<string, unknown>> {
  const { orgId, adminKey } = fileOrgs().orgA;
  const res = await fetch(`${consoleUrl()}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${adminKey}`, "x-organization-id": orgId, "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

/** A Patient created in organization B (with B's key), for tests that open its id as organization A. */
export async function otherOrgPatient(family: string): Promise<string> {
  const other = fileOrgs().orgB;
  const res = await fetch(`${consoleUrl()}/fhir/r4/${other.orgId}/Patient`, {
    method: "POST",
    headers: { authorization: `Bearer ${other.adminKey}`, "x-organization-id": other.orgId, "content-type": "application/fhir+json" },
    body: JSON.stringify({ resourceType: "Patient", name: [{ family }] }),
  });
  if (res.status !== 201) throw new Error(`creating B's patient answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}
