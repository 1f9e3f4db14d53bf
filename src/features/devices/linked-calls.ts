// The port through which a sync reaches a platform for a device whose tokens the device core
// does not hold: OAuth-linked wearables keep theirs (with refresh, its lease and rotation) in
// their own link table. The Worker entry binds it (`DeviceSync.linkedCall`, src/main/entry.ts);
// a device it does not claim is called with the device link's own tokens, as before.
import type { OrgContext } from "../../platform/org-context";
import type { PlatformCall } from "./platform-adapter";

export type LinkedCall = <T>(data: OrgContext, deviceId: string, work: (call: PlatformCall) => Promise<T>) => Promise<{ handled: true; value: T } | { handled: false }>;
