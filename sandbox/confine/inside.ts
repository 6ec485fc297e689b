// What the kernel says about a runner process, read from inside it: the facts the pool's
// first runner reports once at server start, from which the sandbox level is judged (probe.ts).
import fs from 'node:fs';

export interface ObservedConfinement {
  uid: number;
  capEff: string;
  capPrm: string;
  noNewPrivs: string;
  seccomp: string;
  /** The network and PID namespaces (`net:[…]`), compared with the server's own. */
  net: string;
  pid: string;
  /** Neither the hidden path nor /etc/passwd exists (a folder it may not read still counts as seen). */
  viewLimited: boolean;
}

/** `hiddenPath`: a path the runner must not see (the server's database or home). */
export function observeConfinement(hiddenPath: string): ObservedConfinement {
  const status = fs.readFileSync('/proc/self/status', 'utf8');
  const field = (name: string) => new RegExp(`^${name}:\\s*(\\S+)`, 'm').exec(status)?.[1] ?? '';
  return {
    uid: Number(field('Uid')),
    capEff: field('CapEff'),
    capPrm: field('CapPrm'),
    noNewPrivs: field('NoNewPrivs'),
    seccomp: field('Seccomp'),
    net: fs.readlinkSync('/proc/self/ns/net'),
    pid: fs.readlinkSync('/proc/self/ns/pid'),
    viewLimited: absent(hiddenPath) && absent('/etc/passwd'),
  };
}

function absent(file: string): boolean {
  try {
    fs.statSync(file);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
}
