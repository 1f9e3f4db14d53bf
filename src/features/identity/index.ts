// The identity feature's public surface: its users table, which the console session lookup joins
// (a disabled user's sessions stop at once), and the principal a user acts as. Its routes are
// mounted from main/app.ts.
export { users, type UserRow, type UserStatus } from "./tables";
export { userPrincipal } from "./use-cases/principal";
export { userPolicyAssignments } from "./access-policy";
