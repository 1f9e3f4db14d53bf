// Each organization's access-token signing keys (control database). The first token an org
// issues generates one (ES384); rotation adds a newer key, which signs from then on, while every
// unretired key still verifies, so tokens signed just before a rotation stay valid until they
// expire. Keys are cached per isolate: verifying a bearer token reads no database, except once
// when a token names a kid this isolate has not seen (another isolate generated or rotated).
import { and, desc, eq, isNull } from "drizzle-orm";
import { createLocalJWKSet, exportJWK, generateKeyPair, importJWK, type JWK, type JWTVerifyGetKey } from "jose";
import type { Database } from "../../platform/db/client";
import { type SigningKeyRow, smartSigningKeys } from "./tables";

export const TOKEN_ALG = "ES384";
const CACHE_TTL_MS = 5 * 60_000;
// A token naming an unknown kid rereads the keys at most this often (forged kids cost no more).
const MISS_REREAD_MS = 10_000;

export interface OrgKeys {
  /** The newest unretired key: it signs. */
  signing: SigningKeyRow;
  /** Every unretired key's public JWK: they verify. */
  publicJwks: { keys: JWK[] };
  verify: JWTVerifyGetKey;
  kids: ReadonlySet<string>;
}

const cache = new Map<string, { keys: OrgKeys; until: number; readAt: number }>();

async function newKey(orgId: string): Promise<SigningKeyRow> {
  const { privateKey, publicKey } = await generateKeyPair(TOKEN_ALG, { extractable: true });
  const kid = crypto.randomUUID();
  const meta = { kid, alg: TOKEN_ALG, use: "sig" };
  return {
    kid,
    orgId,
    alg: TOKEN_ALG,
    privateJwk: { ...(await exportJWK(privateKey)), ...meta },
    publicJwk: { ...(await exportJWK(publicKey)), ...meta },
    createdAt: new Date().toISOString(),
    retiredAt: null,
  };
}

function unretired(db: Database, orgId: string): Promise<SigningKeyRow[]> {
  return db
    .select()
    .from(smartSigningKeys)
    .where(and(eq(smartSigningKeys.orgId, orgId), isNull(smartSigningKeys.retiredAt)))
    .orderBy(desc(smartSigningKeys.createdAt), desc(smartSigningKeys.kid));
}

function orgKeysOf(rows: SigningKeyRow[]): OrgKeys | undefined {
  const [signing] = rows;
  if (!signing) return undefined;
  const publicJwks = { keys: rows.map((r) => r.publicJwk) };
  return { signing, publicJwks, verify: createLocalJWKSet(publicJwks), kids: new Set(rows.map((r) => r.kid)) };
}

async function load(db: Database, orgId: string, now: number): Promise<OrgKeys | undefined> {
  const keys = orgKeysOf(await unretired(db, orgId));
  if (keys) cache.set(orgId, { keys, until: now + CACHE_TTL_MS, readAt: now });
  return keys;
}

/** The org's keys, generating its first one when it has none (the token endpoint). */
export async function keysForSigning(db: Database, orgId: string, now = Date.now()): Promise<OrgKeys> {
  const hit = cache.get(orgId);
  if (hit && hit.until > now) return hit.keys;
  const found = await load(db, orgId, now);
  if (found) return found;
  await db.insert(smartSigningKeys).values(await newKey(orgId));
  // Reread: an isolate racing this one may have added its own; the newest signs, both verify.
  const keys = await load(db, orgId, now);
  if (!keys) throw new Error("signing key was not stored");
  return keys;
}

/** The org's verifying keys, or undefined when it has never issued a token; `kid` rereads once when unknown. */
export async function keysForVerifying(db: Database, orgId: string, kid: string | undefined, now = Date.now()): Promise<OrgKeys | undefined> {
  const hit = cache.get(orgId);
  const fresh = hit && hit.until > now;
  const knowsKid = kid !== undefined && hit?.keys.kids.has(kid);
  if (hit && fresh && (knowsKid || now - hit.readAt < MISS_REREAD_MS)) return hit.keys;
  return (await load(db, orgId, now)) ?? hit?.keys;
}

/** Adds a newer key (it signs from now on) and retires keys older than `retireBefore` (ISO time), if given. */
export async function rotateSigningKey(db: Database, orgId: string, retireBefore?: string): Promise<SigningKeyRow> {
  const key = await newKey(orgId);
  await db.insert(smartSigningKeys).values(key);
  if (retireBefore) {
    const old = await unretired(db, orgId);
    for (const row of old) {
      if (row.kid !== key.kid && row.createdAt < retireBefore) {
        await db.update(smartSigningKeys).set({ retiredAt: new Date().toISOString() }).where(eq(smartSigningKeys.kid, row.kid));
      }
    }
  }
  cache.delete(orgId);
  return key;
}

/** The signing key as jose takes it. */
export function privateKeyOf(row: SigningKeyRow) {
  return importJWK(row.privateJwk, row.alg);
}
