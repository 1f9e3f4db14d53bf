// Refresh token rotation's logic on the control database itself: one use each, a racing second
// use loses and revokes the family, another client's or org's token is unknown and changes
// nothing, and the checks before a claim (a refused narrowing) leave the token unused.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { checkGrant, createGrant } from "../../src/features/smart/grants";
import { claimRefreshToken, findRefreshToken, issueRefreshToken } from "../../src/features/smart/refresh/rotation";
import { controlStore } from "../../src/platform/org-data";
import { createTenant } from "../support/tenants";
import { approvedCode, exchange, oauthError, quickUser, registerApp, token, tokensOf } from "./launch-support";

async function grantOf(orgId: string, userId: string, clientId: string) {
  const db = controlStore(env);
  const grant = await createGrant(db, {
    id: crypto.randomUUID(),
    orgId,
    clientId,
    userId,
    sessionHash: null,
    scopes: ["offline_access", "user/Patient.rs"],
    patient: null,
    encounter: null,
    fhirUser: null,
    createdAt: new Date().toISOString(),
    revokedAt: null,
    revokedReason: null,
  });
  return { db, grant };
}

describe("refresh token rotation", () => {
  it("claims once; of two racing uses one wins and the other revokes the grant", async () => {
    const t = await createTenant();
    const { db, grant } = await grantOf(t.orgId, "u-1", "c-1");
    const first = await issueRefreshToken(db, grant);
    expect(await claimRefreshToken(db, t.orgId, "c-1", first)).toMatchObject({ ok: true });
    expect(await claimRefreshToken(db, t.orgId, "c-1", first)).toEqual({ ok: false, reason: "reused" });
    expect((await checkGrant(db, env, t.orgId, grant.id)).live).toBe(false);

    const { grant: g2 } = await grantOf(t.orgId, "u-1", "c-1");
    const racing = await issueRefreshToken(db, g2);
    const outcomes = await Promise.all([claimRefreshToken(db, t.orgId, "c-1", racing), claimRefreshToken(db, t.orgId, "c-1", racing)]);
    expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
    expect(outcomes.filter((o) => !o.ok)).toEqual([{ ok: false, reason: "reused" }]);
  });

  it("another client's or org's token is unknown and changes nothing; a refused check leaves the token unused", async () => {
    const [a, b] = [await createTenant(), await createTenant()];
    const { db, grant } = await grantOf(a.orgId, "u-1", "c-1");
    const rt = await issueRefreshToken(db, grant);
    expect(await claimRefreshToken(db, a.orgId, "c-2", rt)).toEqual({ ok: false, reason: "other-client" });
    expect(await claimRefreshToken(db, b.orgId, "c-1", rt)).toEqual({ ok: false, reason: "unknown" });
    expect(await claimRefreshToken(db, a.orgId, "c-1", "rt_malformed")).toEqual({ ok: false, reason: "unknown" });
    await expect(claimRefreshToken(db, a.orgId, "c-1", rt, Date.now(), async () => Promise.reject(new Error("refused")))).rejects.toThrow("refused");
    expect((await findRefreshToken(db, a.orgId, rt))?.usedAt).toBeNull();
    expect(await claimRefreshToken(db, a.orgId, "c-1", rt)).toMatchObject({ ok: true });
    // Only the hash is stored.
    expect(JSON.stringify(await db.run("select * from smart_refresh_tokens"))).not.toContain(rt);
  });

  it("a public client refreshes without repeating its client_id (as fhirclient does); a confidential one must authenticate", async () => {
    const t = await createTenant();
    const user = await quickUser(t);
    const pub = await registerApp(t, { scopes: ["user/Patient.rs", "offline_access"] });
    const conf = await registerApp(t, { type: "confidential", scopes: ["user/Patient.rs", "offline_access"] });
    const scope = "user/Patient.rs offline_access";
    const p = await tokensOf(await exchange(t, pub, ...(Object.values(await approvedCode(t, pub, user, { scope })) as [string, string])));
    const c = await tokensOf(await exchange(t, conf, ...(Object.values(await approvedCode(t, conf, user, { scope })) as [string, string])));
    expect((await tokensOf(await token(t, { grant_type: "refresh_token", refresh_token: p.refresh_token! }))).refresh_token).toMatch(/^rt_/);
    await oauthError(await token(t, { grant_type: "refresh_token", refresh_token: c.refresh_token! }), 401, "invalid_client");
  });
});
