// Types shared by the HTTP layer: the hono environment (what middleware puts on the
// context) and the role model of the API.
import type { HttpBindings } from '@hono/node-server';
import type { Role, TokenEntry } from '../config';

export type { Role };

/** Who is calling: the token's name and role (`unauthenticated` in that mode). */
export type Principal = Pick<TokenEntry, 'name' | 'role'>;

/** Role a path needs: `none` only for /healthz. */
export type RouteRole = Role | 'none';

export interface AppEnv {
  Bindings: HttpBindings;
  Variables: {
    principal: Principal;
    /** Aborted when the server cancels the handler at the end of the shutdown grace. */
    cancelSignal: AbortSignal;
    /** Parsed, validated JSON body (set by jsonBody). */
    body: unknown;
    /** Fields (and the event when it depends on the request) of the admin audit record. */
    adminAudit: { fields: Record<string, unknown>; event?: string };
  };
}
