// One service and one Chromium for the whole browser suite: the service as `npm start` runs it
// (the production bundle with the built console on Miniflare, its own state), two organizations
// with an administrator key each and a clinician key in the first; Debian's Chromium, headless.
import puppeteer from "puppeteer-core";
import type { TestProject } from "vitest/node";
import { type RunningWorker, startWorker } from "../../../bench/lib/worker";
import { FAKE_MODEL, startFakeModel } from "./fake-model";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export interface ConsoleOrg {
  orgId: string;
  adminKey: string;
}

declare module "vitest" {
  export interface ProvidedContext {
    consoleUrl: string;
    browserWs: string;
    orgA: ConsoleOrg & { clinicianKey: string };
    orgB: ConsoleOrg;
  }
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

export default async function setup(project: TestProject) {
  const model = await startFakeModel();
  let worker: RunningWorker | undefined = await startWorker({ runtime: "miniflare", otherOrgs: 1, vars: { LLM_BASE_URL: model.baseURL, LLM_MODELS: FAKE_MODEL, LLM_API_KEY: "fake", OUTBOUND_ALLOW: "127.0.0.1" } });
  const browser = await launchChromium();
  const [other] = worker.others;
  if (!other) throw new Error("the second organization was not seeded");
  const orgA = { orgId: worker.orgId, adminKey: worker.apiKey, clinicianKey: "" };
  orgA.clinicianKey = await createKey(worker, orgA, "clinician", "Dr. Browser");
  project.provide("consoleUrl", worker.url);
  project.provide("browserWs", browser.wsEndpoint());
  project.provide("orgA", orgA);
  project.provide("orgB", { orgId: other.orgId, adminKey: other.apiKey });
  return async () => {
    await browser.close();
    await worker?.stop();
    worker = undefined;
    await model.close();
  };
}
