// Preloaded into each test file's process by run-tests.mjs (whole-suite mode): at exit it
// prints the CPU seconds the file used, its own plus those of the processes it started and
// waited for (servers, runners, bin/svc), as a TAP comment `# cpu N`. Linux only (/proc);
// elsewhere it prints nothing. Wall time alone misleads on a shared machine.
import { readFileSync, writeSync } from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ, fixed at 100 on Linux for /proc/<pid>/stat

process.on('exit', () => {
  let stat;
  try {
    stat = readFileSync('/proc/self/stat', 'utf8');
  } catch {
    return;
  }
  // Fields after the command name (which may hold spaces) start at field 3 (state).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime, stime, cutime, cstime are fields 14-17, so indexes 11-14 here.
  const ticks = fields.slice(11, 15).reduce((sum, field) => sum + Number(field), 0);
  writeSync(2, `\n# cpu ${(ticks / TICKS_PER_SECOND).toFixed(1)}\n`);
});
