/**
 * The seccomp program of managed containment, as the classic BPF bytes bubblewrap loads
 * with `--seccomp FD`. It closes the one way out that the mount and network namespaces
 * leave: a Unix socket somewhere on the read-only host root (a daemon's socket under
 * /var/lib, /srv, a project directory…), which a sandboxed process could otherwise
 * connect to by path. Inside the sandbox:
 *
 * - `socket(AF_UNIX, …)` fails with EAFNOSUPPORT, so nothing can connect to or bind a
 *   Unix socket by path;
 * - `socketpair(AF_UNIX, SOCK_STREAM | SOCK_SEQPACKET, …)` still works (runtimes use it to
 *   talk to their own children); a datagram pair is refused, since a datagram socket can
 *   be re-connected, or sendto() any path;
 * - io_uring is refused with ENOSYS (it can create and connect sockets without the socket
 *   system call; runtimes that try it fall back to ordinary system calls);
 * - any system call of another ABI (32-bit `int 0x80`, whose socketcall() hides its
 *   arguments in memory, and x32) fails with ENOSYS.
 *
 * Built only for x86_64, the architecture it is verified on; elsewhere there is no
 * program and managed containment is reported unavailable rather than weaker.
 */
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The item after bwrap's `--seccomp` that the broker replaces by the descriptor number of the
 * program (see process-broker.ts).
 */
export const SECCOMP_FD_PLACEHOLDER = "@flameox-seccomp-fd@";

const AUDIT_ARCH_X86_64 = 0xc000003e;
const X32_SYSCALL_BIT = 0x40000000;
const NR = {
  socket: 41,
  socketpair: 53,
  io_uring_setup: 425,
  io_uring_enter: 426,
  io_uring_register: 427,
} as const;
const AF_UNIX = 1;
const SOCK_STREAM = 1;
const SOCK_SEQPACKET = 5;
/** socket(2)'s type carries SOCK_NONBLOCK and SOCK_CLOEXEC above these bits. */
const SOCK_TYPE_MASK = 0xf;
const EAFNOSUPPORT = 97;
const ENOSYS = 38;

const SECCOMP_RET_ALLOW = 0x7fff0000;
const SECCOMP_RET_ERRNO = 0x00050000;

// Classic BPF opcodes (linux/filter.h).
const LD_W_ABS = 0x00 | 0x00 | 0x20;
const JMP_JEQ_K = 0x05 | 0x10 | 0x00;
const JMP_JGE_K = 0x05 | 0x30 | 0x00;
const ALU_AND_K = 0x04 | 0x50 | 0x00;
const RET_K = 0x06 | 0x00;

// struct seccomp_data offsets: nr, arch, instruction_pointer, args[6] (low 32 bits first on
// little-endian).
const OFFSET_NR = 0;
const OFFSET_ARCH = 4;
const offsetArg = (i: number) => 16 + 8 * i;

type Step =
  | { op: "ld"; offset: number }
  | { op: "and"; k: number }
  | { op: "jeq" | "jge"; k: number; then?: string; else?: string }
  | { op: "ret"; k: number }
  | { label: string };

/** The filter for this machine, or null where none is built (containment is then unavailable). */
export function sandboxSeccompProgram(arch: string = process.arch): Uint8Array | null {
  if (arch !== "x64") return null;
  return assemble([
    { op: "ld", offset: OFFSET_ARCH },
    { op: "jeq", k: AUDIT_ARCH_X86_64, else: "enosys" },
    { op: "ld", offset: OFFSET_NR },
    { op: "jge", k: X32_SYSCALL_BIT, then: "enosys" },
    { op: "jeq", k: NR.io_uring_setup, then: "enosys" },
    { op: "jeq", k: NR.io_uring_enter, then: "enosys" },
    { op: "jeq", k: NR.io_uring_register, then: "enosys" },
    { op: "jeq", k: NR.socket, then: "socket" },
    { op: "jeq", k: NR.socketpair, then: "socketpair" },
    { op: "ret", k: SECCOMP_RET_ALLOW },
    { label: "socket" },
    { op: "ld", offset: offsetArg(0) },
    { op: "jeq", k: AF_UNIX, then: "refuse_unix" },
    { op: "ret", k: SECCOMP_RET_ALLOW },
    { label: "socketpair" },
    { op: "ld", offset: offsetArg(1) },
    { op: "and", k: SOCK_TYPE_MASK },
    { op: "jeq", k: SOCK_STREAM, then: "allow" },
    { op: "jeq", k: SOCK_SEQPACKET, then: "allow" },
    { label: "refuse_unix" },
    { op: "ret", k: SECCOMP_RET_ERRNO | EAFNOSUPPORT },
    { label: "allow" },
    { op: "ret", k: SECCOMP_RET_ALLOW },
    { label: "enosys" },
    { op: "ret", k: SECCOMP_RET_ERRNO | ENOSYS },
  ]);
}

/**
 * Writes the program to a file that exists only as an open descriptor (created, opened
 * and unlinked at once), for a child to inherit; the caller closes it after the spawn.
 * Null where no program is built.
 */
export function openSeccompProgram(): number | null {
  const program = sandboxSeccompProgram();
  if (!program) return null;
  const dir = mkdtempSync(join(tmpdir(), "flameox-seccomp-"));
  try {
    const path = join(dir, "filter.bpf");
    writeFileSync(path, program, { mode: 0o400 });
    return openSync(path, "r");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function closeSeccompProgram(fd: number | null): void {
  if (fd !== null) closeSync(fd);
}

/**
 * Turns the steps into `struct sock_filter` records (code u16, jt u8, jf u8, k u32; little-endian),
 * resolving labels to forward jumps.
 */
function assemble(steps: Step[]): Uint8Array {
  const labels = new Map<string, number>();
  const instructions: Exclude<Step, { label: string }>[] = [];
  for (const step of steps) {
    if ("label" in step) labels.set(step.label, instructions.length);
    else instructions.push(step);
  }
  const out = new DataView(new ArrayBuffer(instructions.length * 8));
  const jump = (from: number, label: string | undefined): number => {
    if (label === undefined) return 0;
    const offset = labels.get(label)! - (from + 1);
    if (!(offset >= 0 && offset <= 255)) throw new Error(`seccomp jump to ${label} out of range`);
    return offset;
  };
  instructions.forEach((step, i) => {
    const [code, jt, jf, k] =
      step.op === "ld"
        ? [LD_W_ABS, 0, 0, step.offset]
        : step.op === "and"
          ? [ALU_AND_K, 0, 0, step.k]
          : step.op === "ret"
            ? [RET_K, 0, 0, step.k]
            : [
                step.op === "jeq" ? JMP_JEQ_K : JMP_JGE_K,
                jump(i, step.then),
                jump(i, step.else),
                step.k,
              ];
    out.setUint16(i * 8, code, true);
    out.setUint8(i * 8 + 2, jt);
    out.setUint8(i * 8 + 3, jf);
    out.setUint32(i * 8 + 4, k >>> 0, true);
  });
  return new Uint8Array(out.buffer);
}
