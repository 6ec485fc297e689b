// The tasks the host worker threads answer (./host-tasks.ts): plain data in, plain data out.
import { checkJsonValues } from '../json-schema';
// The wire's own module, not the sandbox's index: the worker bundle needs only the decoder.
import { decodeArgsOffThread } from '../../sandbox/pool/wire';
import { Transferring, type Delivered } from '../offload/protocol';
import { scanFiles, unifiedDiffsHere } from './code/scan';
import { localGit } from './git/local';

export const hostTaskHandlers = {
  'code.search': scanFiles,
  diffs: unifiedDiffsHere,
  git: localGit,
  'json-schema': checkJsonValues,
  /** A host call's arguments too large to parse on the server's event loop (sandbox/pool/host-calls.ts). */
  'host-call-args': (input: Parameters<typeof decodeArgsOffThread>[0]) => {
    const { args, texts, transfer } = decodeArgsOffThread(input);
    return new Transferring({ args, texts }, transfer);
  },
};

export type HostTaskKind = keyof typeof hostTaskHandlers;
export type HostTaskInput<K extends HostTaskKind> = Parameters<(typeof hostTaskHandlers)[K]>[0];
export type HostTaskOutput<K extends HostTaskKind> = Delivered<Awaited<ReturnType<(typeof hostTaskHandlers)[K]>>>;
