// The runner's seccomp filter as a classic BPF program (the bytes bubblewrap's `--seccomp`
// loads): system calls a runner never makes, and an escaped one would want, fail with EPERM.
// Written out here rather than through libseccomp so the server needs no native helper.

/** System calls refused, by name: the network, other processes' memory, the kernel's attack surface. */
const REFUSED = [
  'socket', 'socketpair', 'connect', 'bind', 'listen', 'accept', 'accept4',
  'ptrace', 'process_vm_readv', 'process_vm_writev',
  'bpf', 'perf_event_open', 'userfaultfd', 'keyctl', 'add_key', 'request_key',
  'unshare', 'setns', 'mount', 'umount2', 'pivot_root',
  'kexec_load', 'init_module', 'finit_module', 'delete_module',
] as const;

type Syscall = (typeof REFUSED)[number];

interface Architecture {
  /** AUDIT_ARCH_* of the kernel's seccomp_data.arch. */
  audit: number;
  numbers: Record<Syscall, number>;
  /** x86-64 also accepts x32 calls (number | 0x40000000) under the same arch value: refused wholesale. */
  x32Bit?: number;
}

const ARCHITECTURES: Partial<Record<NodeJS.Architecture, Architecture>> = {
  x64: {
    audit: 0xc000003e,
    x32Bit: 0x40000000,
    numbers: {
      socket: 41, socketpair: 53, connect: 42, bind: 49, listen: 50, accept: 43, accept4: 288,
      ptrace: 101, process_vm_readv: 310, process_vm_writev: 311,
      bpf: 321, perf_event_open: 298, userfaultfd: 323, keyctl: 250, add_key: 248, request_key: 249,
      unshare: 272, setns: 308, mount: 165, umount2: 166, pivot_root: 155,
      kexec_load: 246, init_module: 175, finit_module: 313, delete_module: 176,
    },
  },
  arm64: {
    audit: 0xc00000b7,
    numbers: {
      socket: 198, socketpair: 199, connect: 203, bind: 200, listen: 201, accept: 202, accept4: 242,
      ptrace: 117, process_vm_readv: 270, process_vm_writev: 271,
      bpf: 280, perf_event_open: 241, userfaultfd: 282, keyctl: 219, add_key: 217, request_key: 218,
      unshare: 97, setns: 268, mount: 40, umount2: 39, pivot_root: 41,
      kexec_load: 104, init_module: 105, finit_module: 273, delete_module: 106,
    },
  },
};

// Classic BPF opcodes and seccomp return values (linux/filter.h, linux/seccomp.h).
const LOAD_WORD_ABSOLUTE = 0x20;
const JUMP_IF_EQUAL = 0x15;
const JUMP_IF_AT_LEAST = 0x35;
const RETURN = 0x06;
const ALLOW = 0x7fff0000;
const REFUSE = 0x00050000 | 1; // SECCOMP_RET_ERRNO | EPERM
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;

interface Instruction {
  code: number;
  /** Jump targets as instruction indexes (resolved to relative offsets when encoded). */
  whenTrue?: number;
  whenFalse?: number;
  k: number;
}

/** The filter for this machine's architecture, or null where none is known (then the level says so). */
export function seccompFilter(arch: NodeJS.Architecture = process.arch): Buffer | null {
  const known = ARCHITECTURES[arch];
  if (!known) return null;
  const program: Instruction[] = [];
  const refuse = () => 3 + (known.x32Bit === undefined ? 0 : 1) + REFUSED.length + 1;
  program.push({ code: LOAD_WORD_ABSOLUTE, k: OFFSET_ARCH });
  // A call made under another architecture's numbering (int 0x80 on x86-64) is refused outright.
  program.push({ code: JUMP_IF_EQUAL, k: known.audit, whenTrue: 2, whenFalse: refuse() });
  program.push({ code: LOAD_WORD_ABSOLUTE, k: OFFSET_NR });
  if (known.x32Bit !== undefined) program.push({ code: JUMP_IF_AT_LEAST, k: known.x32Bit, whenTrue: refuse(), whenFalse: program.length + 1 });
  for (const name of REFUSED) program.push({ code: JUMP_IF_EQUAL, k: known.numbers[name], whenTrue: refuse(), whenFalse: program.length + 1 });
  program.push({ code: RETURN, k: ALLOW });
  program.push({ code: RETURN, k: REFUSE });
  return encode(program);
}

/** struct sock_filter { u16 code; u8 jt; u8 jf; u32 k; } in the machine's (little-endian) byte order. */
function encode(program: Instruction[]): Buffer {
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach((instruction, index) => {
    const at = index * 8;
    bytes.writeUInt16LE(instruction.code, at);
    bytes.writeUInt8(instruction.whenTrue === undefined ? 0 : instruction.whenTrue - index - 1, at + 2);
    bytes.writeUInt8(instruction.whenFalse === undefined ? 0 : instruction.whenFalse - index - 1, at + 3);
    bytes.writeUInt32LE(instruction.k >>> 0, at + 4);
  });
  return bytes;
}
