// The event an inbound X12 interchange fires and the attributes its trigger filters on
// (pure: the inbound adapter, the bridge and the trigger node share it).

export const X12_EVENT_TYPE = "x12.interchange";

/** The attributes the router sets on an X12 event (from the stored message's facts); the trigger matches a subset. */
export function x12EventAttributes(m: { messageType: string | null; triggerEvent: string | null; sender: string | null }): Record<string, string> {
  return { transaction_set: m.messageType ?? "", implementation: m.triggerEvent ?? "", sender: (m.sender ?? "").split("|")[0] ?? "" };
}
