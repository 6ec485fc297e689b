// Hints for the operator after `svc run`: what would let a refused call through. The
// program's own messages are untouched; these lines are the CLI's, on standard error.
import type { ExecuteResult } from '../execution';
import type { BlockedKind } from '../network';
import { allowingRule } from '../policy';

const BLOCKED = /blocked by network policy: (\S+) resolves only to ([a-z/-]+) address space/;

export async function operatorHints(result: ExecuteResult, remote: boolean): Promise<string[]> {
  const hints: string[] = [];
  const texts = [result.error?.message ?? '', ...(result.discovery_warnings ?? [])];
  const blocked = texts.map((text) => BLOCKED.exec(text)).find((match) => match !== null);
  if (blocked) {
    const { settingsThatAllow } = await import('../network');
    const where = remote ? "the server's setting" : 'for this local run';
    hints.push(`hint: ${blocked[1]} was refused by the outbound address block; ${where} ${settingsThatAllow(blocked[2].split('/') as BlockedKind[])} would let programs reach it`);
  }
  const error = result.error as (ExecuteResult['error'] & { caller?: string; capability?: string; source?: string }) | null;
  if (error?.kind === 'permission_denied' && error.caller && error.capability && error.source === 'policy') {
    hints.push(`hint: the Blueprint denied it; a rule that would allow it: ${allowingRule(error.caller, error.capability)} (narrow it with a filter on the fields \`svc capabilities\` lists${remote ? "; the server's audit record has the exact rule" : ''})`);
  }
  return hints;
}
