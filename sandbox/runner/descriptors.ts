// A runner keeps no descriptor it inherited by accident: whatever the server's own parent
// left open without close-on-exec (a supervisor's pipe, a log file) passes through every
// exec into this process. Node opens its own descriptors close-on-exec, so those without
// the flag, beyond stdio and the IPC channel, are inherited ones; they are closed before
// any guest code runs.
import fs from 'node:fs';

const CLOSE_ON_EXEC = 0o2000000;

export function closeInheritedDescriptors(channelFd = Number(process.env.NODE_CHANNEL_FD)): void {
  let listed: string[];
  try {
    listed = fs.readdirSync('/proc/self/fd');
  } catch {
    return; // no /proc: nothing to learn the descriptors from
  }
  for (const name of listed) {
    const fd = Number(name);
    if (fd <= 2 || fd === channelFd) continue;
    const flags = /^flags:\s*([0-7]+)$/m.exec(readOrEmpty(`/proc/self/fdinfo/${fd}`))?.[1];
    if (flags === undefined || (parseInt(flags, 8) & CLOSE_ON_EXEC) !== 0) continue;
    try {
      fs.closeSync(fd);
    } catch {
      // already gone (the listing's own descriptor, say)
    }
  }
}

function readOrEmpty(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
