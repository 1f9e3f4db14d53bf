// A value to copy (an endpoint, a URL): read-only, selected on focus, with a Copy button that
// says when it worked. The clipboard API needs a secure context, which the console's origin is.
import { useId, useState } from "react";

export function CopyField({ label, value }: { label: string; value: string }) {
  const id = useId();
  const [copied, setCopied] = useState<"yes" | "no">();

  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setCopied("yes");
    } catch {
      // No clipboard permission: the text is selected for the user to copy.
      (document.getElementById(id) as HTMLInputElement | null)?.select();
      setCopied("no");
    }
  }

  return (
    <div className="copy-field">
      <label htmlFor={id}>{label}</label>
      <div className="copy-row">
        <input id={id} className="secret-value" readOnly value={value} onFocus={(e) => e.target.select()} />
        <button type="button" onClick={() => void copy()} aria-label={`Copy the ${label.toLowerCase()}`}>
          Copy
        </button>
        <span role="status" className="muted">
          {copied === "yes" ? "Copied" : copied === "no" ? "Selected: press Ctrl+C" : ""}
        </span>
      </div>
    </div>
  );
}
