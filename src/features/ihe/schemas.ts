// API schemas of the organization's IHE settings.
import { z } from "@hono/zod-openapi";
import type { IheSettings } from "./settings-store";

const settings = {
  mhd_strict: z.boolean().openapi({
    description:
      "Hold every DocumentReference and List search on this organization's FHIR base to IHE MHD ITI-67/ITI-66: without patient (or patient.identifier) or status it is a 400 OperationOutcome. A List search for code submissionset/folder is held to it whatever this says. Default false (docs/ihe.md)",
  }),
  mhd_superseded_gone: z.boolean().openapi({
    description:
      "IHE MHD ITI-68: a raw document retrieve (Binary read with the document's Accept) of a document whose DocumentReferences are all superseded answers 410 Gone with an OperationOutcome instead of the bytes. Default false: superseded documents stay retrievable (docs/ihe.md)",
  }),
};

/** A change: the settings it names; the others keep their values. */
export const IheSettingsBody = z
  .object({ mhd_strict: settings.mhd_strict.optional(), mhd_superseded_gone: settings.mhd_superseded_gone.optional() })
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: "Name at least one setting" })
  .openapi("IheSettingsBody");

export const IheSettingsSchema = z.object({
  ...settings,
  updated_at: z.string().nullable(),
  updated_by: z.string().nullable().openapi({ description: "The API key id that last changed them" }),
}).openapi("IheSettings");

export const presentIheSettings = (s: IheSettings): z.infer<typeof IheSettingsSchema> => ({ mhd_strict: s.mhdStrict, mhd_superseded_gone: s.supersededGone, updated_at: s.updatedAt, updated_by: s.updatedBy });
