// Where the console sends the person once signed in, when something outside it sent them here to
// sign in: `?return_to=` naming an organization's SMART authorization endpoint (its consent
// screen, features/smart). Only such a same-origin path is followed, so the parameter cannot make
// the console an open redirector.
const AUTHORIZE_PATH = /^\/fhir\/r4\/[^/?#]+\/auth\/authorize(\?|$)/;

export function returnTarget(search: string): string | undefined {
  const target = new URLSearchParams(search).get("return_to");
  return target && AUTHORIZE_PATH.test(target) ? target : undefined;
}
