// `svc:http`: outbound HTTP(S) through the egress guard. The guest side turns replies into
// Response objects (headers as a Map, json(), throwForStatus()).
import { httpOperations } from './operations';
import { stdlibModule } from '../sources';

export type { HttpServices } from './operations';

export const httpModule = stdlibModule('http', {
  description: 'Outbound HTTP(S) requests (checked by the policy and the network block)',
  operations: httpOperations,
});
