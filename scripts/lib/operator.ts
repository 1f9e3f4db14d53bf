// Calls an operator route of the running service (/admin/...), authenticated with the deployment's
// OPERATOR_TOKEN: from the environment, or locally from the credentials `npm start` saved.
import { existsSync, readFileSync } from "node:fs";
import { credentialsFile, stateDirOf } from "./dev-state";

function operatorToken(remote: boolean): string {
  const fromEnv = process.env.OPERATOR_TOKEN;
  if (fromEnv) return fromEnv;
  const saved = credentialsFile(stateDirOf(process.env));
  if (!remote && existsSync(saved)) {
    const { operatorToken } = JSON.parse(readFileSync(saved, "utf8")) as { operatorToken?: string };
    if (operatorToken) return operatorToken;
  }
  throw new Error("Set OPERATOR_TOKEN to the deployment's operator token (locally, `npm start` sets one up)");
}

/** POSTs `body` to the operator route `path` (GET with `method`); `command` names the CLI command in errors. */
export async function callOperatorRoute(opts: { command: string; path: string; body?: unknown; url?: string; remote: boolean; method?: "GET" | "POST" }): Promise<unknown> {
  const base = opts.url ?? (opts.remote ? undefined : `http://127.0.0.1:${process.env.PORT ?? "8787"}`);
  if (!base) throw new Error(`${opts.command} --remote needs --url, the deployed service's address`);
  const res = await fetch(`${base.replace(/\/+$/, "")}/admin/${opts.path}`, {
    method: opts.method ?? "POST",
    headers: { authorization: `Bearer ${operatorToken(opts.remote)}`, "content-type": "application/json" },
    ...(opts.method === "GET" ? {} : { body: JSON.stringify(opts.body ?? {}) }),
  }).catch((err: unknown) => {
    throw new Error(`The service at ${base} did not answer (${String(err)}); is it running (npm start)?`);
  });
  const body = (await res.json().catch(() => undefined)) as { error?: { message?: string } } | undefined;
  if (!res.ok) throw new Error(`${opts.command} refused (${res.status}): ${body?.error?.message ?? "no details"}`);
  return body;
}
