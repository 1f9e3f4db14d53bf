// What each failure class means and what follows it (docs/destinations.md, "What each answer means").
export const FAILURE_WORDS: Record<string, string> = {
  refused: "the connection was refused or closed before the answer; retried",
  timeout: "no answer within the timeout; retried",
  unreachable: "DNS, TLS or network failure; retried",
  server_error: "the receiver answered HTTP 5xx; retried",
  throttled: "the receiver answered 408 or 429; retried",
  nack: "the HL7 ACK carried a retryable code (AE, CE by default); retried",
  invalid_response: "the answer was not an ACK; retried",
  configuration: "the connector is gone or the target cannot be used; held until the destination is fixed, then retry now",
  bridge_offline: "the destination's bridge is not connected; retried",
  client_error: "the receiver answered HTTP 4xx; dead",
  gone: "the receiver answered 410 Gone; dead",
  redirect: "the receiver redirected; redirects are not followed, so the endpoint must be changed; dead",
  reject: "the HL7 ACK rejected the message (AR, CR); dead",
  not_allowed: "the outbound guard refuses the address; dead",
};

export const failureWords = (cls: string) => FAILURE_WORDS[cls] ?? cls;
