// Guest side of `svc:fs`: one function per host operation, plus `writer()` (buffered in
// the isolate, committed atomically on close; a writer never closed leaves no file).
// Trusted guest code: it runs on the primordials `P` only (see src/stdlib/types.ts).
import { fsOperations } from './operations';

const hidden = new Set(['openWriter', 'commitWriter']);
const direct = Object.keys(fsOperations).filter((op) => !hidden.has(op));

export const fsGuest = `function (call, P, raw) {
  const ns = P.ObjectCreate(null);
  const direct = ${JSON.stringify(direct)};
  for (let i = 0; i < direct.length; i++) P.ObjectDefineProperty(ns, direct[i], { value: raw[direct[i]], enumerable: true });
  P.ObjectDefineProperty(ns, "writer", { enumerable: true, value: (path) => {
    // The host keeps the checked target; the guest holds only the writer's handle.
    const opened = call("openWriter", path);
    const handle = P.own(opened, "handle");
    const label = P.own(opened, "path");
    const parts = [];
    let closed = false;
    const open = () => { if (closed) throw new P.Error_("fs.writer " + label + ": the writer is closed"); };
    return P.ObjectFreeze({
      writeLine(line) { open(); P.ArrayPrototypePush(parts, P.utf8Encode(P.String_(line) + "\\n")); },
      writeBytes(bytes) {
        open();
        if (!P.isUint8Array(bytes)) throw new P.TypeError_("fs.writer: writeBytes takes a Uint8Array");
        P.ArrayPrototypePush(parts, P.bytesCopy(bytes));
      },
      close() {
        open();
        closed = true;
        call("commitWriter", handle, P.bytesConcat(parts));
      },
    });
  } });
  return ns;
}`;
