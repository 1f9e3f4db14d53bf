// The IHE settings feature's public surface: the organization's settings the IHE profiles read.
export { readIheSettings } from "./settings-store";
