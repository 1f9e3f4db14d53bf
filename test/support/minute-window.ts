// Rate-limit windows are epoch-aligned minutes (the OrgGate's and the per-client ones), so a test
// that spends a limit and expects the next request refused must run inside one window: crossing
// a minute mid-test resets the count and the refusal never comes. This waits out the rest of the
// minute when less than `needMs` of it remains.
export async function withinOneMinuteWindow(needMs = 5_000): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < needMs) await new Promise((resolve) => setTimeout(resolve, left + 100));
}
