// The bridges feature's public surface: on-premises bridges registered per organization, their
// relay connection (a WebSocket to one BridgeRelay object per org and bridge) and the transport
// that delivers `bridge` targets through it. The composition root binds BridgeRelay (entry.ts),
// mounts the routers (app.ts) and hands bridgeTransport to the destinations' queue.
export { BridgeRelay, type BridgeStatus, type RelayDelivery } from "./bridge-relay";
export { bridgeTransport, isBridgeAddress } from "./transport";
export { bridgeConnectRoutes, bridgeRoutes } from "./routes";
export { BridgeStore } from "./store";
