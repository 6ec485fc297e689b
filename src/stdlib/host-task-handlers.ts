// The tasks the host worker threads answer (./host-tasks.ts): plain data in, plain data out.
import { checkJsonValues } from '../json-schema';
import { scanFiles, unifiedDiffsHere } from './code/scan';
import { localGit } from './git/local';

export const hostTaskHandlers = {
  'code.search': scanFiles,
  diffs: unifiedDiffsHere,
  git: localGit,
  'json-schema': checkJsonValues,
};

export type HostTaskKind = keyof typeof hostTaskHandlers;
export type HostTaskInput<K extends HostTaskKind> = Parameters<(typeof hostTaskHandlers)[K]>[0];
export type HostTaskOutput<K extends HostTaskKind> = Awaited<ReturnType<(typeof hostTaskHandlers)[K]>>;
