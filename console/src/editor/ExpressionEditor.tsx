// A JSONata expression field as CodeMirror 6 edits it: completion of the sample's field paths (the
// upstream node's last output) and a live preview of the expression evaluated on that sample by
// the same JSONata library the service runs (no code generation, so it runs under the CSP).
// CodeMirror lives in a shadow root: there its styles are constructed stylesheets, which the
// console's `style-src 'self'` allows, where in the document it would add <style> elements.
import { autocompletion } from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap } from "@codemirror/commands";
import { EditorState } from "@codemirror/state";
import { EditorView, keymap, placeholder } from "@codemirror/view";
import jsonata from "jsonata";
import { useEffect, useMemo, useRef, useState } from "react";
import { completeFields, fieldPaths } from "./expression-fields";

const PREVIEW_DELAY_MS = 250;


type Preview = { ok: true; text: string } | { ok: false; message: string };

async function evaluate(expression: string, sample: unknown): Promise<Preview> {
  try {
    const value = await jsonata(expression).evaluate(sample);
    return { ok: true, text: value === undefined ? "(no value)" : JSON.stringify(value, null, 2) };
  } catch (e) {
    return { ok: false, message: (e as { message?: string }).message ?? String(e) };
  }
}

export function ExpressionEditor({ id, label, value, sample, onChange }: { id: string; label: string; value: string; sample: unknown; onChange(next: string): void }) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView>(undefined);
  const change = useRef(onChange);
  change.current = onChange;
  const paths = useMemo(() => fieldPaths(sample), [sample]);
  const pathsRef = useRef(paths);
  pathsRef.current = paths;
  const [text, setText] = useState(value);
  const [preview, setPreview] = useState<Preview>();

  // biome-ignore lint/correctness/useExhaustiveDependencies: the editor is made once; later values come from the user's own typing.
  useEffect(() => {
    const complete = completeFields(() => pathsRef.current);
    const hostEl = host.current as HTMLDivElement;
    const shadow = hostEl.shadowRoot ?? hostEl.attachShadow({ mode: "open" });
    const mount = document.createElement("div");
    shadow.replaceChildren(mount);
    const editor = new EditorView({
      root: shadow,
      parent: mount,
      state: EditorState.create({
        doc: value,
        extensions: [
          history(),
          keymap.of([...defaultKeymap, ...historyKeymap]),
          autocompletion({ override: [complete], activateOnTyping: true }),
          placeholder("e.g. name.family"),
          EditorView.lineWrapping,
          // The page's stylesheet does not reach into the shadow root: the field's look is set here.
          EditorView.theme({ "&": { border: "1px solid #8c959f", borderRadius: "6px", background: "#fff", fontSize: "0.85rem" }, "&.cm-focused": { outline: "2px solid #0550ae" }, ".cm-content": { fontFamily: "ui-monospace, monospace" } }),
          EditorView.contentAttributes.of({ "aria-label": label, id }),
          EditorView.updateListener.of((u) => {
            if (!u.docChanged) return;
            const next = u.state.doc.toString();
            setText(next);
            change.current(next);
          }),
        ],
      }),
    });
    view.current = editor;
    return () => editor.destroy();
  }, []);

  useEffect(() => {
    if (sample === undefined || !text.trim()) {
      setPreview(undefined);
      return;
    }
    let live = true;
    const timer = setTimeout(() => void evaluate(text, sample).then((p) => live && setPreview(p)), PREVIEW_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [text, sample]);

  return (
    <div className="expression-editor">
      <div ref={host} className="expression-input" />
      {sample === undefined ? (
        <p className="muted">Run the pipeline once to complete field names and preview the result here.</p>
      ) : (
        <div className="expression-preview" aria-live="polite" data-preview={preview?.ok === false ? "error" : "ok"}>
          <span className="muted">
            Preview on the last input ({paths.length} field{paths.length === 1 ? "" : "s"} to complete: Ctrl+Space)
          </span>
          {preview && (preview.ok ? <pre>{preview.text}</pre> : <p className="node-error">{preview.message}</p>)}
        </div>
      )}
    </div>
  );
}
