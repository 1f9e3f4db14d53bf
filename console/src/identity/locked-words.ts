// What a locked account's 401 (with Retry-After) says, at either step of a password sign-in.
export function lockedWords(retryAfterSeconds: number): string {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  return `Too many failed sign-ins: this account is locked. Try again in ${minutes === 1 ? "1 minute" : `${minutes} minutes`}.`;
}
