// One service and one Chromium for the interop and browser projects, which run in one vitest
// process (scripts/test.ts, `npm run test:service`): the service as `npm start` runs it (the
// production bundle with the built console on Miniflare, its own state) and Debian's Chromium,
// headless, started once instead of once per file. Both projects name this globalSetup; the first
// to run starts everything and the last to finish stops it.
//   - Every browser file: two organizations of its own, an administrator key each and a clinician
//     key in the first (browserOrgs, by file name: fileOrgs() in test/browser/harness.ts), since the
//     project runs two files at once; and the fake model for agents and the copilot.
//   - Every interop file: two organizations of its own (serviceOrgs, by file name: test/interop/service.ts),
//     so no file sees another's data; and two page origins for CORS, the first listed in CORS_ORIGINS,
//     each serving a fhirclient browser app under /smart-app/ (test/browser/smart-browser-app.test.ts).
import { globSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { type Server, createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import puppeteer from "puppeteer-core";
import type { TestProject } from "vitest/node";
import { type Credentials, startWorker } from "../../../bench/lib/worker";
import { NODE_INCLUDE } from "../../projects";
import { keptGlobal } from "../../support/kept-global";
import { FAKE_MODEL, startFakeModel } from "./fake-model";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ROOT = path.resolve(import.meta.dirname, "../../..");
/** Organizations each interop file gets: its own, and another for its cross-tenant checks. */
const ORGS_PER_FILE = 2;

export interface ConsoleOrg {
  orgId: string;
  adminKey: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    consoleUrl: string;
    browserWs: string;
    /** Each browser file's two organizations, by file name (test/browser/harness.ts `fileOrgs`). */
    browserOrgs: Record<string, BrowserOrgs>;
    /** Each interop file's organizations, by file name. */
    serviceOrgs: Record<string, Credentials[]>;
    /** Page origins for the CORS tests: `allowed` is in the service's CORS_ORIGINS, `other` is not. */
    corsPages: { allowed: string; other: string };
  }
}

/** A browser file's organizations: A with an administrator and a clinician key, B for cross-tenant checks. */
export interface BrowserOrgs {
  orgA: ConsoleOrg & { clinicianKey: string };
  orgB: ConsoleOrg;
}

export async function createKey(worker: { url: string }, org: ConsoleOrg, role: string, name: string): Promise<string> {
  const res = await fetch(`${worker.url}/api/api-keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${org.adminKey}`, "x-organization-id": org.orgId, "content-type": "application/json" },
    body: JSON.stringify({ name, role }),
  });
  if (res.status !== 201) throw new Error(`creating a ${role} key answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { key: string }).key;
}

export function launchChromium() {
  return puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
}

/**
 * The SMART app the page servers offer under /smart-app/ (test/browser/setup/smart-app/ and
 * fhirclient's browser build, unchanged): another origin than the service, as an app is.
 */
const SMART_APP: Record<string, { file: string; type: string }> = {
  "/smart-app/launch.html": { file: path.join(import.meta.dirname, "smart-app/launch.html"), type: "text/html" },
  "/smart-app/callback.html": { file: path.join(import.meta.dirname, "smart-app/callback.html"), type: "text/html" },
  "/smart-app/app.js": { file: path.join(import.meta.dirname, "smart-app/app.js"), type: "text/javascript" },
  "/smart-app/fhir-client.js": { file: path.join(ROOT, "node_modules/fhirclient/build/fhir-client.js"), type: "text/javascript" },
};

/** A page server on its own loopback port: its origin is http://127.0.0.1:<port>. */
async function pageServer(): Promise<Server> {
  const server = createServer((req, res) => {
    const asset = SMART_APP[new URL(req.url ?? "/", "http://page").pathname];
    if (!asset) return void res.writeHead(200, { "content-type": "text/html" }).end("<!doctype html><title>client</title>");
    readFile(asset.file).then(
      (body) => res.writeHead(200, { "content-type": `${asset.type}; charset=utf-8`, "cache-control": "no-store" }).end(body),
      (error: Error) => res.writeHead(500, { "content-type": "text/plain" }).end(error.message),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

interface Started {
  provided: { [K in "consoleUrl" | "browserWs" | "browserOrgs" | "serviceOrgs" | "corsPages"]: import("vitest").ProvidedContext[K] };
  stop(): Promise<void>;
}

async function start(): Promise<Started> {
  const interopFiles = globSync([...NODE_INCLUDE.interop], { cwd: ROOT }).map((f) => path.basename(f)).sort();
  const browserFiles = globSync([...NODE_INCLUDE.browser], { cwd: ROOT }).map((f) => path.basename(f)).sort();
  const [model, allowed, other] = await Promise.all([startFakeModel(), pageServer(), pageServer()]);
  const origin = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
  const worker = await startWorker({
    runtime: "miniflare",
    // Once for both projects, within their hook budget (180 s): a loaded machine's wait, not a failure.
    startTimeoutMs: 180_000,
    otherOrgs: ORGS_PER_FILE * (browserFiles.length + interopFiles.length) - 1,
    // Every page, sign-in and interop client here is one client to the service (no CF-Connecting-IP
    // locally), where production has one per person: the per-client limit of unauthenticated
    // requests (300 a minute) would otherwise start refusing the console's own page loads part-way
    // through the suite. Its 429 is tested in test/foundation/rate-limit.test.ts.
    vars: { LLM_BASE_URL: model.baseURL, LLM_MODELS: FAKE_MODEL, LLM_API_KEY: "fake", OUTBOUND_ALLOW: "127.0.0.1", CORS_ORIGINS: origin(allowed), LIMIT_PUBLIC_PER_MINUTE: "100000" },
  });
  const browser = await launchChromium();
  const pool: Credentials[] = [{ orgId: worker.orgId, apiKey: worker.apiKey, headers: worker.headers }, ...worker.others];
  const filesOrgs = (files: string[]) => files.map((file) => [file, pool.splice(0, ORGS_PER_FILE)] as const);
  // A pair per browser file, so that files running side by side (the project's maxWorkers) never
  // see each other's records, settings or sign-ins.
  const browserOrgs = Object.fromEntries(
    await Promise.all(
      filesOrgs(browserFiles).map(async ([file, [a, b]]) => {
        if (!a || !b) throw new Error(`${file}: too few organizations were seeded`);
        const orgA = { orgId: a.orgId, adminKey: a.apiKey, clinicianKey: await createKey(worker, { orgId: a.orgId, adminKey: a.apiKey }, "clinician", "Dr. Browser") };
        return [file, { orgA, orgB: { orgId: b.orgId, adminKey: b.apiKey } }] as const;
      }),
    ),
  );
  const serviceOrgs = Object.fromEntries(filesOrgs(interopFiles));
  return {
    provided: { consoleUrl: worker.url, browserWs: browser.wsEndpoint(), browserOrgs, serviceOrgs, corsPages: { allowed: origin(allowed), other: origin(other) } },
    async stop() {
      await browser.close();
      await worker.stop();
      await model.close();
      for (const s of [allowed, other]) await new Promise((r) => s.close(r));
    },
  };
}

/** One start per vitest process, whichever project's globalSetup asks first (module instances differ per project). */
interface Shared {
  started?: Promise<Started>;
  users: number;
}
export default async function setup(project: TestProject) {
  const shared = keptGlobal<Shared>("cdis.test.service", () => ({ users: 0 }));
  shared.started ??= start();
  shared.users++;
  const { provided, stop } = await shared.started;
  for (const [key, value] of Object.entries(provided)) project.provide(key as keyof Started["provided"], value as never);
  return async () => {
    if (--shared.users > 0) return;
    shared.started = undefined;
    await stop();
  };
}
