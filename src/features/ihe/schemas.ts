// API schemas of the organization's IHE settings.
import { z } from "@hono/zod-openapi";
import type { IheSettings } from "./settings-store";

export const IheSettingsBody = z
  .object({
    mhd_strict: z.boolean().openapi({
      description:
        "Hold every DocumentReference and List search on this organization's FHIR base to IHE MHD ITI-67/ITI-66: without patient (or patient.identifier) or status it is a 400 OperationOutcome. A List search for code submissionset/folder is held to it whatever this says. Default false (docs/ihe.md)",
    }),
  })
  .strict()
  .openapi("IheSettingsBody");

export const IheSettingsSchema = IheSettingsBody.extend({
  updated_at: z.string().nullable(),
  updated_by: z.string().nullable().openapi({ description: "The API key id that last changed them" }),
}).openapi("IheSettings");

export const presentIheSettings = (s: IheSettings): z.infer<typeof IheSettingsSchema> => ({ mhd_strict: s.mhdStrict, updated_at: s.updatedAt, updated_by: s.updatedBy });
