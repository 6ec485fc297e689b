// `svc:http`: outbound HTTP(S) through the egress guard. The guest side turns replies into
// Response objects (headers as a Map, json(), throwForStatus()).
import type { HostModule } from '../types';
import { httpOperations } from './operations';
import { declarationsOf, guestSource } from '../sources';

export type { HttpServices } from './operations';

export const httpModule: HostModule = {
  name: 'svc:http',
  description: 'Outbound HTTP(S) requests (checked by the policy and the network block)',
  declarations: declarationsOf('http'),
  operations: httpOperations,
  guest: guestSource('http'),
};
