// The operations feature's public surface: what other features may import (nothing reaches its internals).
export { operatorOnly } from "./routes/admin";
