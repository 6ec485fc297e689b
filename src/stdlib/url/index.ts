// `svc:url`: component and query encoding, parsing and building URLs. Pure, ungated,
// implemented inside the isolate (its `URL` global parses; queries are Maps).
import type { HostModule } from '../types';
import { declarationsOf, guestSource } from '../sources';

export const urlModule: HostModule = {
  name: 'svc:url',
  description: 'URL helpers: encode and decode components and queries, parse and build URLs',
  declarations: declarationsOf('url'),
  operations: {},
  guest: guestSource('url'),
};
