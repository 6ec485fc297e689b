// The URL classes' lazy group (see ./lazy.ts for why groups exist), in a module of its own:
// the platform's fetch and bodies take the classes from it, and ./lazy.ts names fetch's types,
// so the group living there made an import cycle.
import { lazyGroup } from '../lazy-group';
import { lazyWebModules } from './lazy-web';
import type { URL, URLSearchParams } from '../url';

/** What ./url-globals.ts hands over when it is evaluated (prototypes already frozen). */
export interface UrlClasses {
  URL: typeof URL;
  URLSearchParams: typeof URLSearchParams;
}

export const urlGroup = lazyGroup<UrlClasses>(() => lazyWebModules().url());
