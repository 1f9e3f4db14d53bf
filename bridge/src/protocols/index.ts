// Every protocol the bridge knows. A forwarding lane runs for each, whether or not a listener
// feeds it now, so messages queued by an earlier configuration still drain.
import type { ForwardTarget } from "../protocol";
import { deviceReadingsTarget } from "./device-readings/adapter";
import { hl7Target } from "./hl7/adapter";
import { x12Target } from "./x12/adapter";

export const FORWARD_TARGETS: readonly ForwardTarget[] = [hl7Target, x12Target, deviceReadingsTarget];
