// Hints for the operator (server log, audit, CLI), never for the program: the rule that
// would allow a refused call. The program's denial message stays as the contract says.
import { printFilter } from './filter-print';
import type { Filter } from './filter-ast';

/** Context fields that identify what a call touched, in the order a filter would name them. */
const IDENTIFYING_FIELDS = ['host', 'path', 'to', 'vfs_path', 'remote', 'name', 'key', 'prefix', 'tool', 'model'] as const;

/**
 * A rule that would allow this call, as YAML under `permissions`: narrowed to the first
 * identifying field of the context when there is one (`path == "/out/a.txt"`).
 */
export function allowingRule(caller: string, capability: string, context: Readonly<Record<string, unknown>> = {}): string {
  const field = IDENTIFYING_FIELDS.find((name) => typeof context[name] === 'string');
  const filter: Filter | null = field ? { kind: 'compare', path: [field], op: '==', operand: { kind: 'string', value: context[field] as string } } : null;
  const caller_ = /^[A-Za-z0-9_-]+$/.test(caller) ? caller : JSON.stringify(caller);
  return `permissions.${caller_}: - {capability: ${capability}${filter ? `, filter: '${printFilter(filter).replace(/'/g, "''")}'` : ''}, action: allow}`;
}
