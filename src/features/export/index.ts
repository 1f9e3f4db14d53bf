// The export feature's public surface: what other features and the composition root may import.
export { exportsByHour } from "./hourly";
