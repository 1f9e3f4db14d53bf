// Scripted loopback receivers for the outbound tests (test/setup/outbound-peers.ts serves them).
import { inject } from "vitest";

export interface ScriptStep {
  /** MLLP: the ACK code to answer, or drop (close on the frame), half (close mid-ACK), silent. */
  reply?: "AA" | "AE" | "AR" | "CE" | "drop" | "half" | "silent";
  /** HTTP: the status to answer. */
  status?: number;
  times?: number;
  delay_ms?: number;
  location?: string;
  /** MLLP: the step answers only messages whose MSH-10 starts with this. */
  control_prefix?: string;
  /** MLLP: close the connection once the ACK is written. */
  close_after?: boolean;
}

export interface Received {
  body: string;
  headers: Record<string, string>;
  at: number;
  answered: string;
  verified?: boolean;
  /** With secrets: for each, in order, whether the request verified with it alone. */
  verified_each?: boolean[];
  error?: string;
  /** MLLP: the connection it came on, numbered from 1 as the receiver accepted them. */
  connection?: number;
}

async function create<T>(kind: "mllp" | "http", spec: object): Promise<T> {
  const res = await fetch(`${inject("outboundPeersUrl")}/${kind}`, { method: "POST", body: JSON.stringify(spec) });
  if (res.status !== 201) throw new Error(`peer not created: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

export const mllpReceiver = (script: ScriptStep[] = []) => create<{ id: string; port: number }>("mllp", { script });
export const httpReceiver = (script: ScriptStep[] = [], secrets?: string[]) => create<{ id: string; url: string }>("http", { script, secrets });

export async function receivedBy(peerId: string): Promise<Received[]> {
  return ((await (await fetch(`${inject("outboundPeersUrl")}/${peerId}/received`)).json()) as { received: Received[] }).received;
}

/** The secrets an HTTP receiver verifies later requests with (a webhook endpoint's, known once it is registered). */
export async function setReceiverSecrets(peerId: string, secrets: string[]): Promise<void> {
  const res = await fetch(`${inject("outboundPeersUrl")}/${peerId}/secrets`, { method: "PUT", body: JSON.stringify({ secrets }) });
  if (res.status !== 204) throw new Error(`secrets not set: ${res.status} ${await res.text()}`);
}
