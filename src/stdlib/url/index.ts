// `svc:url`: component and query encoding, parsing and building URLs. Pure, ungated,
// implemented inside the isolate (its `URL` global parses; queries are Maps).
import { stdlibModule } from '../sources';

export const urlModule = stdlibModule('url', {
  description: 'URL helpers: encode and decode components and queries, parse and build URLs',
  operations: {},
});
