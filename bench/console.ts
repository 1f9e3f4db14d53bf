// The web console in headless Chromium (Debian's) against the service as `npm start` runs it:
// - first load of the console (the sign-in route): bytes of every response, raw and gzip, and the
//   time until the sign-in form is interactive, against a blank static page loaded the same way;
// - the editor opening a 200-node pipeline until every node and edge is drawn, against the same
//   editor opening a 2-node pipeline.
// Each figure is the median of --runs (default 5) cold loads in fresh browser contexts.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { buildConsole } from "../scripts/lib/console-build";
import { allMeasured, sampled } from "./lib/measured";
import { numberOption } from "./lib/options";
import { startWorker } from "./lib/worker";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const RUNS = numberOption("runs", 5, { integer: true });
const BIG = numberOption("nodes", 200, { integer: true });

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** A chain: a manual trigger, then `n - 1` JSONata transforms, laid out in rows of 10. */
function chain(n: number) {
  const nodes = Array.from({ length: n }, (_, i) =>
    i === 0
      ? { id: "n0", type: "control.manual_trigger", config: {}, position: { x: 0, y: 0 } }
      : { id: `n${i}`, type: "data.transform", config: { expression: "$" }, position: { x: (i % 10) * 280, y: Math.floor(i / 10) * 180 } },
  );
  const connections = nodes.slice(1).map((_, i) => ({ from: { node: `n${i}`, port: i === 0 ? "event" : "output" }, to: { node: `n${i + 1}`, port: "input" } }));
  return { nodes, connections };
}

async function fresh<T>(browser: Browser, run: (page: Page) => Promise<T>): Promise<T> {
  const context = await browser.createBrowserContext();
  try {
    return await run(await context.newPage());
  } finally {
    await context.close();
  }
}

/** Loads `url` cold; answers ms until `ready` holds and the bytes of every response. */
async function coldLoad(page: Page, url: string, ready: string): Promise<{ ms: number; raw: number; gzip: number }> {
  const bodies: Promise<Buffer | undefined>[] = [];
  page.on("response", (res) => bodies.push(res.buffer().catch(() => undefined)));
  const t0 = performance.now();
  await page.goto(url, { waitUntil: "load" });
  await page.waitForFunction(ready, { polling: "raf" });
  const ms = performance.now() - t0;
  const buffers = (await Promise.all(bodies)).filter((b): b is Buffer => b !== undefined);
  return { ms, raw: buffers.reduce((s, b) => s + b.length, 0), gzip: buffers.reduce((s, b) => s + gzipSync(b).length, 0) };
}

async function main() {
  buildConsole({ quiet: true });
  const blank = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>blank</title><input>"));
  await new Promise<void>((r) => blank.listen(0, "127.0.0.1", r));
  const blankUrl = `http://127.0.0.1:${(blank.address() as AddressInfo).port}/`;
  // The console's files count in the client IP's window (300/min by default), and every cold load
  // in a fresh context fetches them all from one address: the window is raised for this run, so
  // the figures are load times, never a 429.
  const worker = await startWorker({ runtime: "miniflare", vars: { LIMIT_PUBLIC_PER_MINUTE: "100000000" } });
  const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
  try {
    const headers = { ...worker.headers, "content-type": "application/json" };
    const create = async (def: unknown) => {
      const res = await fetch(`${worker.url}/api/pipelines`, { method: "POST", headers, body: JSON.stringify({ name: "bench", definition: def }) });
      if (res.status !== 201) throw new Error(`pipeline create answered ${res.status}: ${await res.text()}`);
      return ((await res.json()) as { id: string }).id;
    };
    const [bigId, smallId] = [await create(chain(BIG)), await create(chain(2))];

    const blankLoads: number[] = [];
    const consoleLoads: { ms: number; raw: number; gzip: number }[] = [];
    for (let i = 0; i < RUNS; i++) {
      blankLoads.push((await fresh(browser, (p) => coldLoad(p, blankUrl, "document.querySelector('input') !== null"))).ms);
      consoleLoads.push(await fresh(browser, (p) => coldLoad(p, `${worker.url}/`, "document.querySelector('input[name=organization]') !== null")));
    }

    /** Signs in once per context, then opens the editor on `id` and waits for every node and edge. */
    const openEditor = (n: number, id: string) =>
      fresh(browser, async (page) => {
        await page.goto(`${worker.url}/`, { waitUntil: "networkidle0" });
        await page.type("input[name=organization]", worker.orgId);
        await page.click("button[data-switch-to=key]");
        await page.type("input[name=api_key]", worker.apiKey);
        await Promise.all([page.waitForSelector("nav[aria-label=Main]"), page.click("button[type=submit]")]);
        // Warm the editor's chunk, so the figure is rendering, not downloading code.
        await page.evaluate(() => history.pushState(null, "", "/pipelines"));
        const t0 = performance.now();
        await page.goto(`${worker.url}/pipelines/${id}/edit`, { waitUntil: "load" });
        await page.waitForFunction((count: number) => document.querySelectorAll(".react-flow__node").length === count && document.querySelectorAll(".react-flow__edge").length === count - 1, { polling: "raf", timeout: 60_000 }, n);
        return performance.now() - t0;
      });
    const small: number[] = [];
    const big: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      small.push(await openEditor(2, smallId));
      big.push(await openEditor(BIG, bigId));
    }

    const [blankMs, loadMs, gzipBytes, rawBytes, smallMs, bigMs] = allMeasured([
      { label: "blank page load ms", value: median(sampled("blank", blankLoads)) },
      { label: "console first load ms", value: median(sampled("console", consoleLoads.map((l) => l.ms))) },
      { label: "console first load gzip bytes", value: median(consoleLoads.map((l) => l.gzip)) },
      { label: "console first load raw bytes", value: median(consoleLoads.map((l) => l.raw)) },
      { label: "2-node editor ms", value: median(sampled("small editor", small)) },
      { label: `${BIG}-node editor ms`, value: median(sampled("big editor", big)) },
    ] as const);
    console.log(`runs: ${RUNS} cold loads each (median); LIMIT_PUBLIC_PER_MINUTE raised to 100,000,000 for the run`);
    console.log(`baseline: blank static page interactive in ${blankMs.toFixed(0)} ms`);
    console.log(`console first route (sign-in): ${(gzipBytes / 1024).toFixed(1)} KB gzip (${(rawBytes / 1024).toFixed(1)} KB raw; target ≤ 300 KB gzip), interactive in ${loadMs.toFixed(0)} ms = ${(loadMs / blankMs).toFixed(1)}× the blank page`);
    console.log(`baseline: editor with a 2-node pipeline drawn in ${smallMs.toFixed(0)} ms`);
    // Both include the page boot, the session, catalog and pipeline fetches: the difference is the rendering of the extra nodes.
    console.log(`editor with a ${BIG}-node pipeline drawn in ${bigMs.toFixed(0)} ms from navigation = ${(bigMs / smallMs).toFixed(2)}× the 2-node one; ${(bigMs - smallMs).toFixed(0)} ms more (target ≤ 500 ms to render ${BIG} nodes)`);
  } finally {
    await browser.close();
    await worker.stop();
    blank.close();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
