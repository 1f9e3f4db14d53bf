// `npm run admin -- move-org`: asks the running service to move an organization between shards
// (src/platform/org-move.ts does the work inside the Worker, where the shard bindings are). It
// authenticates with the deployment's OPERATOR_TOKEN: from the environment, or locally from the
// credentials `npm start` saved. The service answers when the move is done (tens of seconds:
// it waits out every isolate's directory cache twice).
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

export async function moveOrg(opts: { orgId: string; shard: string; url?: string; remote: boolean }): Promise<unknown> {
  const base = opts.url ?? (opts.remote ? undefined : `http://127.0.0.1:${process.env.PORT ?? "8787"}`);
  if (!base) throw new Error("move-org --remote needs --url, the deployed service's address");
  const res = await fetch(`${base.replace(/\/+$/, "")}/admin/organizations/${encodeURIComponent(opts.orgId)}/move`, {
    method: "POST",
    headers: { authorization: `Bearer ${operatorToken(opts.remote)}`, "content-type": "application/json" },
    body: JSON.stringify({ shard: opts.shard }),
  }).catch((err: unknown) => {
    throw new Error(`The service at ${base} did not answer (${String(err)}); is it running (npm start)?`);
  });
  const body = (await res.json().catch(() => undefined)) as { error?: { message?: string } } | undefined;
  if (!res.ok) throw new Error(`Move refused (${res.status}): ${body?.error?.message ?? "no details"}`);
  return body;
}
