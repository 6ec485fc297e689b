// What outbound HTTP needs from its run: the egress guard's dispatcher and the Blueprint's auth proxy rules.
import type { Dispatcher } from 'undici';
import type { AuthProxyRule } from '../../blueprints';

export interface HttpServices {
  allowInsecureHttp: boolean;
  authProxy: readonly AuthProxyRule[];
  /** Secret value for injection (store or harness), or undefined. */
  secretValue: (name: string) => string | undefined;
  /** The egress-guarded dispatcher. */
  dispatcher: Dispatcher;
  userAgent: string;
}
