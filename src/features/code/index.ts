// Tenant code: the sandbox's one entry point (runTenantCode) and the code.javascript node family.
export { codeNodes } from "./node";
export type { CodeHelper, CodeHelpers } from "./ports";
export { CODE_ERRORS, type CodeError, type CodeErrorCode, type CodeLimits, DEFAULT_LIMITS, MAX_LIMITS, runTenantCode, type RunResult, type TenantApi } from "./sandbox";
export { CodeConfig } from "./node";
export { type CodeRunner, type CodeRunOutcome, codeRunner } from "./runner";
export { syntaxError } from "./sandbox";
