// Sync resolutions: per data type, "raw" (the samples as the vendor recorded them) or one of the
// roll-up windows the platform says it offers (`PlatformAdapter.resolutions`). The sync request
// chooses per type; an organization's default lives in its integration settings as
// `resolution.<data type>`. A choice the platform does not offer is a 400 naming what it does.
import { badRequest, type FieldError } from "../../platform/errors";
import type { PlatformAdapter } from "./platform-adapter";

export const RAW = "raw";
const SETTING_PREFIX = "resolution.";

const offered = (adapter: PlatformAdapter, dataType: string) => [RAW, ...(adapter.resolutions?.[dataType] ?? [])];

function check(adapter: PlatformAdapter, dataType: string, resolution: string, path: string, errors: FieldError[]): void {
  if (!adapter.dataTypes.includes(dataType)) {
    errors.push({ path, message: `${dataType} is not a data type of this platform; allowed: ${adapter.dataTypes.join(", ")}` });
    return;
  }
  const allowed = offered(adapter, dataType);
  if (!allowed.includes(resolution)) {
    const rollUps = allowed.length > 1 ? `offers ${allowed.join(", ")} for ${dataType}` : `cannot roll ${dataType} up: only raw`;
    errors.push({ path, message: `"${resolution}" is not a resolution this platform offers; it ${rollUps}` });
  }
}

/** The integration's `resolution.<type>` settings, checked (on save, so a bad default never reaches a sync). */
export function checkResolutionSettings(adapter: PlatformAdapter | undefined, settings: Readonly<Record<string, string>>): void {
  const errors: FieldError[] = [];
  for (const [key, value] of Object.entries(settings)) {
    if (!key.startsWith(SETTING_PREFIX)) continue;
    if (!adapter) errors.push({ path: `settings.${key}`, message: "this platform offers no sync resolutions" });
    else check(adapter, key.slice(SETTING_PREFIX.length), value, `settings.${key}`, errors);
  }
  if (errors.length) throw badRequest("Invalid sync resolution", errors);
}

/**
 * The resolution of each synced type that is not raw: the request's choice, else the
 * integration's default. Throws 400 for a type or window the platform does not offer.
 */
export function resolutionsFor(adapter: PlatformAdapter, dataTypes: readonly string[], requested: Readonly<Record<string, string>> | undefined, settings: Readonly<Record<string, string>>): Record<string, string> {
  const errors: FieldError[] = [];
  for (const [dataType, value] of Object.entries(requested ?? {})) check(adapter, dataType, value, `resolution.${dataType}`, errors);
  if (errors.length) throw badRequest("Invalid sync resolution", errors);
  const chosen: Record<string, string> = {};
  for (const dataType of dataTypes) {
    const value = (requested && Object.hasOwn(requested, dataType) ? requested[dataType] : undefined) ?? (Object.hasOwn(settings, `${SETTING_PREFIX}${dataType}`) ? settings[`${SETTING_PREFIX}${dataType}`] : undefined);
    if (value !== undefined && value !== RAW && offered(adapter, dataType).includes(value)) chosen[dataType] = value;
  }
  return chosen;
}
