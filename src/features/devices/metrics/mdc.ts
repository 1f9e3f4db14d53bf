// The ISO/IEEE 11073-10101 (MDC) codes a gateway or bedside monitor sends, for every device
// category of spec 2.9, mapped to the service's metrics (or a blood-pressure component). A code
// is partition × 65536 + term code; every code here is in partition 2 (SCADA, the physiological
// measurements) and each term code was checked against public listings of the nomenclature
// (docs/devices.md, "MDC codes"). A code not listed is a bedside stream (its code kept).

export interface MdcCode {
  /** The 32-bit context-free code, as a string (what `mdc` carries, and the coding's code). */
  readonly code: string;
  /** The reference id (MDC_PULS_OXIM_SAT_O2), the coding's display. */
  readonly refId: string;
  readonly metric: string;
  /** Set for a panel's part (systolic): the reading is the panel with this one component. */
  readonly component?: string;
  /** The UCUM unit the code is measured in, for a message that names none. */
  readonly ucum: string;
}

const SCADA = 2;
const entry = (term: number, refId: string, metric: string, ucum: string, component?: string): MdcCode => ({
  code: String(SCADA * 65_536 + term),
  refId,
  metric,
  ucum,
  ...(component ? { component } : {}),
});
const bp = (term: number, refId: string, component: string) => entry(term, refId, "blood_pressure", "mm[Hg]", component);
const glucose = (term: number, refId: string) => entry(term, refId, "blood_glucose", "mg/dL");
const temperature = (term: number, refId: string) => entry(term, refId, "body_temperature", "Cel");

export const MDC_CODES: readonly MdcCode[] = [
  // ECG / heart rate (a pulse rate from an oximeter or a cuff is the heart-rate metric too)
  entry(16770, "MDC_ECG_HEART_RATE", "heart_rate", "/min"),
  entry(16168, "MDC_ECG_TIME_PD_RR_GL", "rr_interval", "ms"),
  entry(18458, "MDC_PULS_OXIM_PULS_RATE", "heart_rate", "/min"),
  entry(18474, "MDC_PULS_RATE_NON_INV", "heart_rate", "/min"),
  // Blood pressure: the PHD panel and its parts, and a monitor's cuff pressures
  entry(18948, "MDC_PRESS_BLD_NONINV", "blood_pressure", "mm[Hg]"),
  bp(18949, "MDC_PRESS_BLD_NONINV_SYS", "systolic"),
  bp(18950, "MDC_PRESS_BLD_NONINV_DIA", "diastolic"),
  bp(18951, "MDC_PRESS_BLD_NONINV_MEAN", "mean"),
  bp(19229, "MDC_PRESS_CUFF_SYS", "systolic"),
  bp(19230, "MDC_PRESS_CUFF_DIA", "diastolic"),
  bp(19231, "MDC_PRESS_CUFF_MEAN", "mean"),
  // Pulse oximeter
  entry(19384, "MDC_PULS_OXIM_SAT_O2", "spo2", "%"),
  // Weight / BMI (weighing scale, body composition)
  entry(57664, "MDC_MASS_BODY_ACTUAL", "weight", "kg"),
  entry(57668, "MDC_LEN_BODY_ACTUAL", "height", "cm"),
  entry(57680, "MDC_RATIO_MASS_BODY_LEN_SQ", "bmi", "kg/m2"),
  entry(57676, "MDC_BODY_FAT", "body_fat", "%"),
  // Glucose: the CGM's interstitial fluid, and a meter's samples
  entry(29140, "MDC_CONC_GLU_ISF", "cgm_glucose", "mg/dL"),
  glucose(28948, "MDC_CONC_GLU_GEN"),
  glucose(29112, "MDC_CONC_GLU_CAPILLARY_WHOLEBLOOD"),
  glucose(29116, "MDC_CONC_GLU_CAPILLARY_PLASMA"),
  glucose(29120, "MDC_CONC_GLU_VENOUS_WHOLEBLOOD"),
  glucose(29124, "MDC_CONC_GLU_VENOUS_PLASMA"),
  glucose(29128, "MDC_CONC_GLU_ARTERIAL_WHOLEBLOOD"),
  glucose(29132, "MDC_CONC_GLU_ARTERIAL_PLASMA"),
  glucose(29292, "MDC_CONC_GLU_UNDETERMINED_WHOLEBLOOD"),
  glucose(29296, "MDC_CONC_GLU_UNDETERMINED_PLASMA"),
  // Spirometry (peak flow meter, spirometer)
  entry(21514, "MDC_VOL_AWAY_EXP_FORCED_1S", "fev1", "L"),
  entry(57856, "MDC_VOL_AWAY_EXP_FORCED_CAPACITY", "fvc", "L"),
  entry(21512, "MDC_FLOW_AWAY_EXP_FORCED_PEAK", "peak_flow", "L/min"),
  // Body temperature, by site
  temperature(19272, "MDC_TEMP"),
  temperature(19292, "MDC_TEMP_BODY"),
  temperature(19320, "MDC_TEMP_TYMP"),
  temperature(57348, "MDC_TEMP_RECT"),
  temperature(57352, "MDC_TEMP_ORAL"),
  temperature(57356, "MDC_TEMP_EAR"),
  temperature(57360, "MDC_TEMP_FINGER"),
  temperature(57376, "MDC_TEMP_TOE"),
  temperature(57380, "MDC_TEMP_AXILLA"),
  temperature(57384, "MDC_TEMP_GIT"),
  // Respiration
  entry(20490, "MDC_RESP_RATE", "respiratory_rate", "/min"),
];

const BY_CODE: ReadonlyMap<string, MdcCode> = new Map(MDC_CODES.map((c) => [c.code, c]));

/** The metric (and component) an MDC code measures, or undefined for a code of no metric here. */
export const mdcCode = (code: string): MdcCode | undefined => BY_CODE.get(code.trim());
