// Logging settings: the server log must open for appending
// (the only write preflight makes); the audit file only warns; the allows mode.
import fs from 'node:fs';
import path from 'node:path';
import { invalid } from './errors';
import { asString, type ConfigFile } from './file';
import type { AllowsMode } from './settings';
import { fileLookup } from './sources';
import type { StartupWarning } from './types';

export function checkLogFile(file: string): void {
  try {
    const stat = fs.statSync(file, { throwIfNoEntry: false });
    if (stat && !stat.isFile()) throw new Error('not a regular file');
    fs.closeSync(fs.openSync(file, 'a'));
  } catch (error) {
    throw invalid(`cannot open server log ${file}: ${(error as Error).message}`);
  }
}

/**
 * The audit file is not a startup condition (each record retries the open), but an
 * operator should hear at once when it cannot work. Checked without creating anything.
 */
export function auditFileWarnings(auditFile: string | null): StartupWarning[] {
  if (auditFile === null) return [];
  const stat = fs.statSync(auditFile, { throwIfNoEntry: false });
  let problem: string | null = null;
  if (stat && !stat.isFile()) problem = 'not a regular file';
  else if (!stat && !fs.statSync(path.dirname(auditFile), { throwIfNoEntry: false })?.isDirectory()) problem = 'its directory does not exist';
  if (problem === null) return [];
  return [{ target: 'svc_server::config', msg: 'audit file cannot be opened yet; each audit record will retry', fields: { file: auditFile, reason: problem } }];
}

export function allowsMode(file: ConfigFile | null): AllowsMode {
  const value = fileLookup(file, 'logging.audit.allows');
  if (value === undefined) return 'summary';
  const text = asString(value, 'logging.audit.allows');
  if (text !== 'summary' && text !== 'all' && text !== 'none') throw invalid(`config \`logging.audit.allows\`: expected \`summary\`, \`all\` or \`none\`, got \`${text}\``);
  return text;
}
