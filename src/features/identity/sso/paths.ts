// Where single sign-on lives and where it may land. Pure, so it is unit tested.

/** The organization's paths of the flow, below the public base URL. */
export const ssoPaths = (orgId: string) => {
  const base = `/api/v1/auth/sso/${encodeURIComponent(orgId)}`;
  return { base, start: `${base}/start`, callback: `${base}/callback` };
};

const MAX_RETURN_TO = 512;

/** A path of this service to land on after signing in: absolute-path only (never `//host` or a scheme), else `/`. */
export function safeReturnTo(raw: string | undefined): string {
  if (!raw || raw.length > MAX_RETURN_TO) return "/";
  return /^\/(?![/\\])[A-Za-z0-9\-._~!$&'()*+,;=:@/%?]*$/.test(raw) ? raw : "/";
}
