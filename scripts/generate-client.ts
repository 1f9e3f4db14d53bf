// Writes clients/typescript/api.d.ts from the recorded OpenAPI document (the snapshot the
// document test keeps equal to what the service serves).
import { readFileSync, writeFileSync } from "node:fs";
import { CLIENT_TYPES, clientTypes } from "./lib/openapi-client";

const document = JSON.parse(readFileSync("test/foundation/__snapshots__/openapi.json", "utf8")) as object;
writeFileSync(CLIENT_TYPES, await clientTypes(document));
console.log(`wrote ${CLIENT_TYPES}`);
