// How the destination pages write durations, ages and targets.
import type { Destination } from "./types";

/** 850 ms, 4.2 s, 3 min 5 s, 2 h 10 min, 3 d 4 h. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.floor(s % 60)} s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h} h ${m % 60} min`;
  return `${Math.floor(h / 24)} d ${h % 24} h`;
}

export function when(iso: string | null | undefined): string {
  return iso ? new Date(iso).toLocaleString() : "—";
}

/** The target in words: the connector's name when known, the URL, or the bridge and its address. */
export function targetText(target: Destination["target"], names: { connectors?: Map<string, string>; bridges?: Map<string, string> } = {}): string {
  switch (target.kind) {
    case "connector":
      return `connector ${names.connectors?.get(target.connector_id) ?? target.connector_id}`;
    case "url":
      return target.url;
    case "bridge":
      return `bridge ${names.bridges?.get(target.bridge_id) ?? target.bridge_id} → ${target.address}`;
    case "websocket":
      return `websocket of subscription ${target.subscription_id}`;
  }
}

/** HL7 v2 text (starts with MSH) shown one segment per line; anything else as it is. */
export function payloadLines(body: string): { hl7: boolean; text: string } {
  const hl7 = /^MSH\|/.test(body);
  return { hl7, text: hl7 ? body.split(/\r\n|\r|\n/).filter((l) => l !== "").join("\n") : prettyJson(body) };
}

function prettyJson(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}
