// The devices feature's public surface: what other features may import (nothing reaches its internals).
export type { Reading } from "./reading";
export type { DevicePlatform } from "./platforms/platform";
export { readingsByHour } from "./hourly";
