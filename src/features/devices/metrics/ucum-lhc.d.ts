// The part of @lhncbc/ucum-lhc (which ships no types) that unit normalisation uses.
declare module "@lhncbc/ucum-lhc" {
  interface ConversionResult {
    status: "succeeded" | "failed" | "error";
    toVal: number | null;
    msg: string[];
  }
  interface ValidationResult {
    status: "valid" | "invalid" | "error";
    msg: string[];
  }
  export const UcumLhcUtils: {
    getInstance(): {
      convertUnitTo(fromUnitCode: string, fromVal: number, toUnitCode: string, options?: { molecularWeight?: number }): ConversionResult;
      validateUnitString(unit: string): ValidationResult;
    };
  };
}
