// An address the console does not know, or a page the session's role may not open.
import { Link } from "wouter";

export function NotFound() {
  return (
    <div className="error" role="alert">
      <h1>Not found</h1>
      <p>
        There is no such page. <Link href="/">Back to the overview</Link>
      </p>
    </div>
  );
}

export function NotAllowed({ what }: { what: string }) {
  return (
    <div className="error" role="alert">
      <h1>Not allowed</h1>
      <p>Your role may not {what}. Ask an administrator of your organization.</p>
    </div>
  );
}
