// One HTTP delivery: the message's body with its content type and headers, the destination's
// method and headers, an answer read into an attempt's result. Redirects are not followed.
import { excerpt, httpResult } from "../classify";
import type { AttemptResult, Delivery } from "../model";
import { errorResult } from "./errors";

export type HttpSend = (path: string, init: RequestInit) => Promise<Response>;

/** Headers every delivery carries: the delivery id (receivers de-duplicate on it) and the attempt number. */
export function deliveryHeaders(d: Delivery): Record<string, string> {
  return { "content-type": d.message.content_type ?? "application/json", "x-delivery-id": d.message.id, "x-delivery-attempt": String(d.attempt) };
}

export async function sendHttp(send: HttpSend, d: Delivery, extraHeaders: Record<string, string> = {}): Promise<AttemptResult> {
  const method = d.message.method ?? d.destination.http.method;
  const headers = { ...d.destination.http.headers, ...deliveryHeaders(d), ...d.message.headers, ...extraHeaders };
  try {
    const res = await send(d.message.path ?? "", { method, headers, body: method === "DELETE" ? undefined : d.message.body, redirect: "manual", signal: d.signal });
    const text = await res.text().catch(() => "");
    return httpResult(res.status, excerpt(text), res.headers.get("location"));
  } catch (err) {
    return errorResult(err);
  }
}
