// Public API of the HTTP layer.
export { createApp, type AppOptions } from './app';
export { startListener, type Listener, type ListenerOptions } from './listener';
export type { RouteDependencies } from './route-table';
export type { OpsDependencies } from './routes/ops';
export { HttpError, type ErrorBody } from './errors';
export { jsonBody, bodyOf, bodyText, bodyTooLarge, BodyTooLargeError, requireQuery, jsonBodyLimit, MAX_JSON_BODY_BYTES } from './validation';
export { adminAudit, noteAdminAudit } from './admin-audit';
export type { AppEnv, Principal, RouteRole } from './types';
