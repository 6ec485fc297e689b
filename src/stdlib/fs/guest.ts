// Guest side of `svc:fs`: one function per host operation, plus `writer()` (buffered in
// the isolate, committed atomically on close; a writer never closed leaves no file).
import type { GuestCall, GuestOperations, GuestPrimordials } from '../guest-contract';

/** Host operations behind writer(), not offered as functions. */
const HIDDEN = ['openWriter', 'commitWriter'];

export default function fsGuest(call: GuestCall, P: GuestPrimordials, raw: GuestOperations): object {
  const ns = P.ObjectCreate(null);
  const names = P.ObjectKeys(raw);
  for (let i = 0; i < names.length; i++) {
    if (!P.ArrayPrototypeIncludes(HIDDEN, names[i])) P.ObjectDefineProperty(ns, names[i], { value: raw[names[i]], enumerable: true });
  }
  P.ObjectDefineProperty(ns, 'writer', {
    enumerable: true,
    value: (path: string) => {
      // The host keeps the checked target; the guest holds only the writer's handle.
      const opened = call('openWriter', path);
      const handle = P.own(opened, 'handle');
      const label = P.own(opened, 'path');
      const parts: Uint8Array[] = [];
      let closed = false;
      const open = () => {
        if (closed) throw new P.Error_('fs.writer ' + label + ': the writer is closed');
      };
      return P.ObjectFreeze({
        writeLine(line: unknown) {
          open();
          P.ArrayPrototypePush(parts, P.utf8Encode(P.String_(line) + '\n'));
        },
        writeBytes(bytes: unknown) {
          open();
          if (!P.isUint8Array(bytes)) throw new P.TypeError_('fs.writer: writeBytes takes a Uint8Array');
          P.ArrayPrototypePush(parts, P.bytesCopy(bytes));
        },
        close() {
          open();
          closed = true;
          call('commitWriter', handle, P.bytesConcat(parts));
        },
      });
    },
  });
  return ns;
}
