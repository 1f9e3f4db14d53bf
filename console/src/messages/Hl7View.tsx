// A received HL7 v2 message, segment by segment, each field labelled with its position (PID-5) and
// name, each component with its position (PID-5.1) and its data type's name for it (Family Name). Parsed in the browser with the service's own parser (pure, no
// imports beyond its folder), so the console reads fields exactly as pipelines do.
import { parseMessage } from "../../../src/standards/hl7v2/parse";
import { unescapeValue } from "../../../src/standards/hl7v2/escape";
import { componentName, fieldName, fieldType } from "./hl7-field-names";

interface FieldView {
  position: string;
  n: number;
  name?: string;
  type?: string;
  text: string;
  components: string[];
}

function fieldsOf(raw: string): { name: string; fields: FieldView[] }[] | string {
  let message: ReturnType<typeof parseMessage>;
  try {
    message = parseMessage(raw, { allowShortHeader: true });
  } catch (e) {
    return (e as Error).message;
  }
  return message.segments.map((segment) => {
    const d = segment.delimiters;
    const fields: FieldView[] = [];
    for (let n = 1; n <= segment.length; n++) {
      const rawField = segment.fields[n] ?? "";
      if (rawField === "") continue;
      const header = segment.isHeader && n <= 2;
      const first = header ? rawField : (rawField.split(d.repetition)[0] ?? "");
      const components = header ? [] : first.split(d.component).map((c) => unescapeValue(c, d));
      fields.push({ position: `${segment.name}-${n}`, n, name: fieldName(segment.name, n), type: fieldType(segment.name, n), text: header ? rawField : segment.field(n).text, components: components.length > 1 ? components : [] });
    }
    return { name: segment.name, fields };
  });
}

export function Hl7View({ raw }: { raw: string }) {
  const segments = fieldsOf(raw);
  if (typeof segments === "string")
    return (
      <>
        <p className="muted">The message could not be parsed ({segments}); its text as received:</p>
        <pre className="json-block">{raw}</pre>
      </>
    );
  return (
    <div className="hl7-view">
      {segments.map((s, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: segments keep their order and repeat names.
        <section key={i} className="hl7-segment" aria-label={`Segment ${i + 1}: ${s.name}`}>
          <h3>{s.name}</h3>
          <dl>
            {s.fields.map((f) => (
              <div key={f.position} className="hl7-field" data-field={f.position}>
                <dt>
                  {f.position}
                  {f.name && <span className="muted"> {f.name}</span>}
                  {f.type && <span className="muted"> ({f.type})</span>}
                </dt>
                <dd>
                  <code>{f.text}</code>
                  {f.components.length > 0 && (
                    <ol className="hl7-components">
                      {f.components.map((c, j) =>
                        c ? (
                          // biome-ignore lint/suspicious/noArrayIndexKey: components are positional.
                          <li key={j} value={j + 1} data-component={`${f.position}.${j + 1}`}>
                            <span className="muted">
                              {f.position}.{j + 1}
                              {componentName(s.name, f.n, j + 1) && ` ${componentName(s.name, f.n, j + 1)}`}
                            </span>{" "}
                            <span className="hl7-value">{c}</span>
                          </li>
                        ) : null,
                      )}
                    </ol>
                  )}
                </dd>
              </div>
            ))}
          </dl>
        </section>
      ))}
    </div>
  );
}
