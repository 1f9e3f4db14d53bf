// X12 for tenant code (`ctx.x12`, the code feature's CodeHelpers port): the service's own reader
// and writer. parse(text) answers what the X12 parse node outputs ({valid, issues, interchanges},
// the JSON model of document-json.ts); build(json) takes that model back (or X12 build's short
// form) and answers the X12 text. Failures are ApiErrors with X12_<code>.
import type { CodeHelpers } from "../../features/code";
import { ApiError } from "../../platform/errors";
import { writeX12 } from "./build";
import { readToJson } from "./document-json";
import { x12DocumentOf } from "./nodes/build";
import { issueJson, rethrowX12 } from "./nodes/input";
import { readX12 } from "./read";

export const X12_CODE_HELPERS: CodeHelpers = {
  "x12.parse": {
    call: ([text]) => {
      if (typeof text !== "string") throw new ApiError(400, "X12_INPUT_INVALID", "ctx.x12.parse takes the X12 text");
      try {
        const read = readX12(text);
        return { valid: read.issues.length === 0, issues: read.issues.map(issueJson), interchanges: readToJson(read) };
      } catch (err) {
        rethrowX12(err);
      }
    },
  },
  "x12.build": {
    call: ([json, options]) => {
      try {
        return writeX12(x12DocumentOf(json, crypto.randomUUID()), { separator: (options as { lineBreaks?: unknown } | undefined)?.lineBreaks === true ? "\n" : "" });
      } catch (err) {
        rethrowX12(err);
      }
    },
  },
};
