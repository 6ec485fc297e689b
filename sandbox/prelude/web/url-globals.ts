// The lazily evaluated URL globals (./url-group.ts `urlGroup`): importing this module evaluates
// URL and URLSearchParams (../url.ts), which a hello-world run does not need, and hands them
// over to the globals, svc:url's guest code and the platform's fetch and bodies.
import { URL, URLSearchParams } from '../url';
import { provide } from '../lazy-group';
import { named } from '../idl';
import { ObjectFreeze } from './primordials';
import { urlGroup } from './url-group';

// Trusted code uses these classes: their methods must stay ours.
ObjectFreeze(URL.prototype);
ObjectFreeze(URLSearchParams.prototype);
provide(urlGroup, { URL: named(URL, 'URL'), URLSearchParams: named(URLSearchParams, 'URLSearchParams') });
