// A node's configuration as a form generated from its type's config_schema (RJSF), validated as
// you type by the CSP-safe validator over @cfworker/json-schema, each error beside its field.
// The Form module itself: the package index also re-exports a test registry that imports
// @rjsf/validator-ajv8, which RJSF does not ship (and whose Ajv the CSP would refuse anyway).
import Form from "@rjsf/core/lib/components/Form.js";
import type { RJSFSchema, UiSchema, WidgetProps } from "@rjsf/utils";
import { useMemo } from "react";
import "./config-form.css";
import { ExpressionEditor } from "./ExpressionEditor";
import { CfworkerValidator } from "./form-validator";

const validator = new CfworkerValidator<Record<string, unknown>>();
// The editor saves the whole pipeline; the form has no submit of its own.
const UI_SCHEMA: UiSchema = { "ui:submitButtonOptions": { norender: true } };

// JSONata fields are the ones the service's jsonataExpression() describes so.
const isJsonata = (p: unknown) => typeof (p as { description?: unknown })?.description === "string" && (p as { description: string }).description.startsWith("JSONata expression");

function JsonataWidget({ id, label, value, onChange, registry }: WidgetProps) {
  return <ExpressionEditor id={id} label={label} value={typeof value === "string" ? value : ""} sample={(registry.formContext as { sample?: unknown } | undefined)?.sample} onChange={(v) => onChange(v === "" ? undefined : v)} />;
}
const WIDGETS = { jsonata: JsonataWidget };

export function ConfigForm({ nodeId, schema, config, sample, onChange }: { nodeId: string; schema: RJSFSchema; config: Record<string, unknown>; sample?: unknown; onChange(next: Record<string, unknown>): void }) {
  const uiSchema = useMemo<UiSchema>(() => {
    const fields = Object.entries(schema.properties ?? {}).filter(([, p]) => isJsonata(p));
    return { ...UI_SCHEMA, ...Object.fromEntries(fields.map(([name]) => [name, { "ui:widget": "jsonata" }])) };
  }, [schema]);
  const formContext = useMemo(() => ({ sample }), [sample]);
  return (
    <Form
      className="config-form"
      idPrefix={`config-${nodeId}`}
      schema={schema}
      uiSchema={uiSchema}
      widgets={WIDGETS}
      formContext={formContext}
      formData={config}
      validator={validator}
      liveValidate="onChange"
      showErrorList={false}
      noHtml5Validate
      // Only a user's edit changes the node: the defaults RJSF derives on its own are reported with
      // no field id, and adopting them would turn merely opening a node into a new version.
      onChange={(event, id) => {
        if (id !== undefined) onChange((event.formData ?? {}) as Record<string, unknown>);
      }}
    />
  );
}
