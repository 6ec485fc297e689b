// The URL classes' lazy group (see ./lazy.ts for why groups exist), in a module of its own:
// the platform's fetch and bodies take the classes from it, and ./lazy.ts names fetch's types,
// so the group living there made an import cycle.
import { lazyGroup } from '../lazy-group';
import type { URL, URLSearchParams } from '../url';

/** What ./url-globals.ts hands over when it is evaluated (prototypes already frozen). */
export interface UrlClasses {
  URL: typeof URL;
  URLSearchParams: typeof URLSearchParams;
}

// `require` as a statement: as a value the bundler would build a namespace object for it.
export const urlGroup = lazyGroup<UrlClasses>(() => {
  require('./url-globals');
});
