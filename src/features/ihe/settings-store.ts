// The organization's IHE settings row (ihe_settings), with the defaults of an org that set none.
// Read on every DocumentReference/List search, so an isolate keeps what it read for a few
// seconds (another isolate's change shows within SETTINGS_CACHE_MS), like the consent policy.
import { eq } from "drizzle-orm";
import type { OrgData } from "../../platform/org-data";
import { iheSettings } from "./tables";

export interface IheSettings {
  mhdStrict: boolean;
  supersededGone: boolean;
  updatedAt: string | null;
  updatedBy: string | null;
}

export const DEFAULT_IHE_SETTINGS: IheSettings = { mhdStrict: false, supersededGone: false, updatedAt: null, updatedBy: null };

/** The settings an administrator sets; what a change leaves out keeps its value. */
export type IheSettingsChange = Partial<Pick<IheSettings, "mhdStrict" | "supersededGone">>;

export const SETTINGS_CACHE_MS = 10_000;
const cached = new Map<string, { settings: IheSettings; until: number }>();

const remember = (orgId: string, settings: IheSettings) => {
  cached.set(orgId, { settings, until: Date.now() + SETTINGS_CACHE_MS });
  return settings;
};

export async function readIheSettings(data: Pick<OrgData, "db" | "orgId">, fresh = false): Promise<IheSettings> {
  const known = cached.get(data.orgId);
  if (!fresh && known && known.until > Date.now()) return known.settings;
  const [row] = await data.db.select().from(iheSettings).where(eq(iheSettings.orgId, data.orgId)).limit(1);
  return remember(data.orgId, row ? { mhdStrict: row.mhdStrict, supersededGone: row.supersededGone, updatedAt: row.updatedAt, updatedBy: row.updatedBy } : DEFAULT_IHE_SETTINGS);
}

export async function writeIheSettings(data: Pick<OrgData, "db" | "orgId">, change: IheSettingsChange, by: string): Promise<IheSettings> {
  const current = await readIheSettings(data, true);
  const row = { orgId: data.orgId, mhdStrict: change.mhdStrict ?? current.mhdStrict, supersededGone: change.supersededGone ?? current.supersededGone, updatedAt: new Date().toISOString(), updatedBy: by };
  const { orgId: _, ...set } = row;
  await data.db.insert(iheSettings).values(row).onConflictDoUpdate({ target: iheSettings.orgId, set });
  return remember(data.orgId, { ...set });
}
