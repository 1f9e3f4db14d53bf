// A node's configuration as a form generated from its type's config_schema (RJSF), validated as
// you type by the CSP-safe validator over @cfworker/json-schema, each error beside its field.
// The Form module itself: the package index also re-exports a test registry that imports
// @rjsf/validator-ajv8, which RJSF does not ship (and whose Ajv the CSP would refuse anyway).
import Form from "@rjsf/core/lib/components/Form.js";
import type { RJSFSchema, UiSchema } from "@rjsf/utils";
import "./config-form.css";
import { CfworkerValidator } from "./form-validator";

const validator = new CfworkerValidator<Record<string, unknown>>();
// The editor saves the whole pipeline; the form has no submit of its own.
const UI_SCHEMA: UiSchema = { "ui:submitButtonOptions": { norender: true } };

export function ConfigForm({ nodeId, schema, config, onChange }: { nodeId: string; schema: RJSFSchema; config: Record<string, unknown>; onChange(next: Record<string, unknown>): void }) {
  return (
    <Form
      className="config-form"
      idPrefix={`config-${nodeId}`}
      schema={schema}
      uiSchema={UI_SCHEMA}
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
