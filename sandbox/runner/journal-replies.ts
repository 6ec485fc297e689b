// A journal entry as the runner's host reply.
import type { HostCallEntry } from '../journal/entries';
import { replyText } from '../journal/reply';
import type { HostReplyMessage } from './protocol';

/** The entry as a reply message for the runner's usual reply path. */
export function replyMessage(runId: number, callId: number, entry: HostCallEntry): HostReplyMessage {
  const blobs = (entry.blobs ?? []).map((blob) => new Uint8Array(Buffer.from(blob, 'base64')));
  return { type: 'host-reply', runId, callId, reply: replyText(entry), ...(blobs.length > 0 ? { blobs } : {}), fuel: entry.fuel };
}

/**
 * A withheld answer (it held a secret) that the replaying host gave again, charged as the
 * recorded call was: the guest reads its fuel from the reply text, and a replay's host
 * (answering from an operator's own values) does not know what the recording's host charged.
 */
export function withRecordedFuel(message: HostReplyMessage, fuel: number): HostReplyMessage {
  let parsed: unknown;
  try {
    parsed = JSON.parse(message.reply);
  } catch {
    return { ...message, fuel };
  }
  if (parsed === null || typeof parsed !== 'object') return { ...message, fuel };
  return { ...message, reply: JSON.stringify({ ...parsed, fuel }), fuel };
}
