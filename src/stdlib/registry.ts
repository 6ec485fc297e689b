// The one place that lists every standard-library module the host implements. Each
// capability adds its module here; the execution layer and discovery read this table.
import { fsModule } from './fs';
import type { HostModule } from './types';

const modules: HostModule[] = [fsModule];

/** All host modules by import name (`svc:fs`, ...). */
export function hostModules(): ReadonlyMap<string, HostModule> {
  return new Map(modules.map((m) => [m.name, m]));
}
