// A journal entry as the runner's host reply.
import type { HostCallEntry } from '../journal/entries';
import { replyText } from '../journal/reply';
import type { HostReplyMessage } from './protocol';

/** The entry as a reply message for the runner's usual reply path. */
export function replyMessage(runId: number, callId: number, entry: HostCallEntry): HostReplyMessage {
  const blobs = (entry.blobs ?? []).map((blob) => new Uint8Array(Buffer.from(blob, 'base64')));
  return { type: 'host-reply', runId, callId, reply: replyText(entry), ...(blobs.length > 0 ? { blobs } : {}), fuel: entry.fuel };
}
