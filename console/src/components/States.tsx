// What a page shows while loading, when the API refused, and when a list is empty.
import type { ReactNode } from "react";
import type { ApiFailure } from "../lib/api";

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status">
      Loading {what}…
    </p>
  );
}

/** The API's own message, and for a missing record a plain not-found (another org's ids land here too). */
export function ErrorMessage({ error }: { error: ApiFailure }) {
  const title = error.status === 404 ? "Not found" : error.status === 403 ? "Not allowed" : "Something went wrong";
  return (
    <div className="error" role="alert">
      <strong>{title}</strong>
      <p>{error.message}</p>
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="empty">
      <h2>{title}</h2>
      <div>{children}</div>
    </div>
  );
}
