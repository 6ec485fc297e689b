// The one place that lists every standard-library module the host implements. Each
// capability adds its module here; the execution layer and discovery read this table.
import { codeModule } from './code';
import { cryptoModule } from './crypto';
import { embeddingModule } from './embedding';
import { fsModule } from './fs';
import { gitModule } from './git';
import { httpModule } from './http';
import { llmModule } from './llm';
import { secretsModule } from './secrets';
import { securityModule } from './security';
import { sessionModule } from './session';
import type { HostModule } from './types';
import { urlModule } from './url';
import { uuidModule } from './uuid';

const modules: HostModule[] = [fsModule, codeModule, httpModule, gitModule, sessionModule, llmModule, embeddingModule, cryptoModule, urlModule, uuidModule, secretsModule, securityModule];

/** All host modules by import name (`svc:fs`, ...). */
export function hostModules(): ReadonlyMap<string, HostModule> {
  return new Map(modules.map((m) => [m.name, m]));
}
