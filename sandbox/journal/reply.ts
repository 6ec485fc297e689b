// A host call's answer between its two forms: the reply text the guest read (recorded by
// the runner, cheap: no parse) and the decoded `answer`/`error` a tape shows. Either
// rebuilds a reply of the same length and meaning, so a replay charges the same fuel.
import type { HostCallEntry } from './entries';

/** The reply text the guest reads for this entry. */
export function replyText(entry: HostCallEntry): string {
  if (typeof entry.reply === 'string') return entry.reply;
  if (entry.error !== undefined) return JSON.stringify({ ok: false, error: entry.error, fuel: entry.fuel });
  return JSON.stringify({ ok: true, value: entry.answer, fuel: entry.fuel });
}

/** The tape's form of an entry: `answer` or `error` decoded from the reply text (the text itself left out). */
export function decodedEntry(entry: HostCallEntry): HostCallEntry {
  if (typeof entry.reply !== 'string') return entry;
  const { reply, ...rest } = entry;
  let parsed: { ok?: unknown; value?: unknown; error?: HostCallEntry['error'] };
  try {
    parsed = JSON.parse(reply) as typeof parsed;
  } catch {
    return { ...rest, error: { name: 'Error', message: 'the recorded reply could not be read' } };
  }
  return parsed.ok === true ? { ...rest, answer: parsed.value } : { ...rest, error: parsed.error ?? { name: 'Error', message: 'no error recorded' } };
}
