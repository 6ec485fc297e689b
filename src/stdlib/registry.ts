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
import { asyncForm } from './async-form';
import { urlModule } from './url';
import { testModule } from './test';
import { uuidModule } from './uuid';
import { webModule } from './web';

// The modules that wait on the network also come in an asynchronous form (src/stdlib/async-form.ts).
const modules: HostModule[] = [fsModule, codeModule, httpModule, asyncForm(httpModule), gitModule, sessionModule, llmModule, asyncForm(llmModule), embeddingModule, asyncForm(embeddingModule), cryptoModule, urlModule, uuidModule, secretsModule, securityModule, webModule];

/**
 * Refuses a module with an operation that declares no gate: every operation is either
 * gated (a `gate` deriving its checks) or says why not (`gate: 'none'` with a reason).
 */
export function checkModule(module: HostModule): HostModule {
  for (const [name, operation] of Object.entries(module.operations)) {
    const declared = operation as Partial<{ gate: unknown; ungatedBecause: unknown; run: unknown }>;
    const gated = typeof declared.gate === 'function';
    const ungated = declared.gate === 'none' && typeof declared.ungatedBecause === 'string' && declared.ungatedBecause.trim() !== '';
    if (typeof declared.run !== 'function' || (!gated && !ungated)) {
      throw new TypeError(`${module.name}.${name} cannot be registered: an operation declares its gate (a function deriving its capability checks) or gate 'none' with the reason`);
    }
  }
  return module;
}

/** All host modules by import name (`svc:fs`, ...), each checked; `svc:test` only for the Package test runner. */
export function hostModules(options: { packageTests?: boolean } = {}): ReadonlyMap<string, HostModule> {
  const table = options.packageTests ? [...modules, testModule] : modules;
  return new Map(table.map((m) => [m.name, checkModule(m)]));
}

/** Whether `module`.`op` takes its long string arguments as TextBytes (GatedOperation.textAsBytes). */
export function takesTextAsBytes(module: string, op: string): boolean {
  const found = modules.find((m) => m.name === module);
  const operation = found && Object.hasOwn(found.operations, op) ? found.operations[op] : undefined;
  return operation !== undefined && operation.gate !== 'none' && operation.textAsBytes === true;
}
