// The invitation link an administrator sends: the console's accept page with the organization and
// the one-time token in the fragment, which browsers never send to a server (no access log, no
// Referer), so the token travels only from the administrator to the invited person's browser.
export const ACCEPT_PATH = "/accept-invitation";

export function invitationLink(origin: string, organizationId: string, token: string): string {
  return `${origin}${ACCEPT_PATH}#${new URLSearchParams({ org: organizationId, token }).toString()}`;
}

/** The organization and token of the link this page was opened with (either may be missing). */
export function readInvitation(hash: string): { organizationId: string; token: string } {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  return { organizationId: params.get("org") ?? "", token: params.get("token") ?? "" };
}
