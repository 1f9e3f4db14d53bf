// Operator route of the device feature: which organizations the old reading key let another
// patient's reading take over a reading of (migration 0017, docs/devices.md "Reading identity"),
// over every shard, so an operator knows whom to tell after deploying it. It takes the
// OPERATOR_TOKEN; each organization's admin lists and restores its own (routes/devices.ts).
import { createRoute, z } from "@hono/zod-openapi";
import type { HttpEnv } from "../../../platform/http/http-env";
import { createRouter } from "../../../platform/http/router";
import { commonErrors, json } from "../../../platform/http/schemas";
import { operatorOnly } from "../../operations";
import { readingMovesByOrg } from "../use-cases/reading-moves";

const Report = z
  .object({ organizations: z.array(z.object({ org_id: z.string(), shard: z.string(), moves: z.number().int(), unrestored: z.number().int() })), total_count: z.number().int() })
  .openapi("DeviceReadingMovesReport");

export const deviceAdminRoutes = createRouter<HttpEnv>().openapi(
  createRoute({
    method: "get",
    path: "/device-reading-moves",
    operationId: "reportDeviceReadingMoves",
    tags: ["Operator"],
    summary: "Operator only: organizations with readings another patient's reading took over, per shard",
    description:
      "Takes the deployment's OPERATOR_TOKEN (404 where none is set). What the data migration 0017 found in every shard: per organization, the moved readings and how many are not restored yet (an organization's admin restores them with POST /api/v1/devices/reading-moves/restore).",
    security: [{ operatorToken: [] }],
    middleware: operatorOnly,
    responses: { 200: { description: "Report", content: json(Report) }, ...commonErrors },
  }),
  async (c) => {
    const organizations = await readingMovesByOrg(c.env);
    return c.json({ organizations: organizations.map((o) => ({ org_id: o.orgId, shard: o.shard, moves: o.moves, unrestored: o.unrestored })), total_count: organizations.length }, 200);
  },
);
