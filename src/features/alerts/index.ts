// The alerts feature's public surface: what other features and the composition root may import.
export { alertsByHour } from "./hourly";
