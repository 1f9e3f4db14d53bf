// Recognizing database errors that callers turn into API errors.

/** A UNIQUE constraint failure, whether D1 reports it directly or drizzle wraps it as the cause. */
export function isUniqueViolation(e: unknown): boolean {
  for (let cur: unknown = e; cur; cur = cur instanceof Error ? cur.cause : undefined) {
    if (String(cur instanceof Error ? cur.message : cur).includes("UNIQUE constraint failed")) return true;
  }
  return false;
}
