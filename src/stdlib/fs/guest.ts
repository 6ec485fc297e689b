// Guest side of `svc:fs`: one function per host operation, plus `writer()` (buffered in
// the isolate, committed atomically on close; a writer never closed leaves no file).
import { fsOperations } from './operations';

const hidden = new Set(['openWriter', 'commitWriter']);
const direct = Object.keys(fsOperations).filter((op) => !hidden.has(op));

export const fsGuest = `function (call) {
  const ns = {};
  for (const op of ${JSON.stringify(direct)}) ns[op] = (...args) => call(op, ...args);
  ns.writer = (path) => {
    const target = call("openWriter", path);
    const parts = [];
    let closed = false;
    const open = () => { if (closed) throw new Error("fs.writer " + target + ": the writer is closed"); };
    return Object.freeze({
      writeLine(line) { open(); parts.push(new TextEncoder().encode(String(line) + "\\n")); },
      writeBytes(bytes) { open(); if (!(bytes instanceof Uint8Array)) throw new TypeError("fs.writer: writeBytes takes a Uint8Array"); parts.push(bytes.slice()); },
      close() {
        open();
        closed = true;
        const size = parts.reduce((n, p) => n + p.length, 0);
        const all = new Uint8Array(size);
        let at = 0;
        for (const p of parts) { all.set(p, at); at += p.length; }
        call("commitWriter", target, all);
      },
    });
  };
  return ns;
}`;
