// What svc:git needs from its run: the Blueprint's `git` block as the server resolved it.
import type { Dispatcher } from 'undici';

export interface GitServices {
  identity: { name: string; email: string } | null;
  /** Error text when the identity could not be filled from the session's variables. */
  identityProblem?: string;
  username?: string;
  token: () => string | undefined;
  dispatcher: Dispatcher;
}
