/**
 * Managed containment, attacked from inside: a workload (as root, and as an unprivileged
 * user where the host allows unprivileged user namespaces) tries to remount the root,
 * write outside its writable roots, read /root, connect to host Unix sockets under
 * /tmp and /run and elsewhere on the read-only root (the project, /var/lib), reach a
 * host datagram socket through a datagram socketpair, and set up io_uring. The same
 * attack script run outside the sandbox succeeds, so each assertion can fail. The behaviour probe
 * must prove the real bwrap and unmask a fake.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  bubblewrapArgv,
  privateDirectories,
  TRUSTED_BWRAP_PATHS,
} from "../../src/broker/containment.ts";
import { runProcess } from "../../src/broker/process-broker.ts";
import { locateBubblewrap, probeSandbox } from "../../src/broker/sandbox-probe.ts";
import { REPO } from "../helpers.ts";

const BWRAP = TRUSTED_BWRAP_PATHS.find((p) => existsSync(p)) ?? null;
const PYTHON = ["/usr/bin/python3", "/bin/python3"].find((p) => existsSync(p)) ?? null;
const SETPRIV = ["/usr/bin/setpriv", "/bin/setpriv"].find((p) => existsSync(p)) ?? null;
const IS_ROOT = process.geteuid?.() === 0;

/** Whether every directory above `path` lets other users through (o+x). */
function othersCanReach(path: string): boolean {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    if (dir === dirname(dir)) return true;
  }
}
/**
 * The unprivileged probe runs this checkout's Bun and sources as uid 65534: a checkout under a
 * private directory (`mktemp -d` makes one 0700) cannot be read by that user at all, so that
 * case says so and does not run, rather than failing on the probe's empty output.
 */
const CHECKOUT_REACHABLE = othersCanReach(REPO) && othersCanReach(process.execPath);
if (IS_ROOT && !CHECKOUT_REACHABLE)
  console.warn(
    "containment: the checkout or its Bun is under a directory other users cannot enter; " +
      "the probe as uid 65534 is not run",
  );

const ATTACK = `
import ctypes, json, os, socket, subprocess, sys
outside, writable, secret, tmp_sock, run_sock, project_sock, var_sock, dgram_sock = sys.argv[1:9]
def write(path):
    try:
        with open(path, "w") as f: f.write("planted")
        return True
    except OSError:
        return False
def connect(path):
    try:
        s = socket.socket(socket.AF_UNIX); s.settimeout(2); s.connect(path); s.close(); return True
    except OSError:
        return False
def dgram_pair_send(path):
    try:
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM); a.sendto(b"x", path); return \
True
    except OSError:
        return False
def stream_pair():
    try:
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM); a.sendall(b"x"); return \
b.recv(1) == b"x"
    except OSError:
        return False
# socket(AF_UNIX) through the 32-bit entry (int 0x80, i386 socket = 359), from code written
# into executable memory; a separate interpreter, since a kernel without IA-32 emulation
# kills it (None then).
I386 = """
import ctypes, mmap
code = bytes([0x53, 0xb8,0x67,0x01,0,0, 0xbb,1,0,0,0, 0xb9,1,0,0,0, 0x31,0xd2, 0xcd,0x80, 0x5b, \
0xc3])
buf = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
buf.write(code)
print(ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(buf)))())
"""
def i386_socket():
    r = subprocess.run([sys.executable, "-c", I386], capture_output=True, text=True)
    return int(r.stdout) >= 0 if r.returncode == 0 else None
def io_uring_enosys():
    libc = ctypes.CDLL(None, use_errno=True)
    params = ctypes.create_string_buffer(120)
    fd = libc.syscall(425, 1, params)
    if fd >= 0:
        os.close(fd); return False
    return ctypes.get_errno() == 38
remount = subprocess.run(["mount", "-o", "remount,rw", "/"], capture_output=True).returncode == 0
def readable(path):
    try:
        with open(path, "rb") as f: return len(f.read()) > 0
    except OSError:
        return False
status = open("/proc/self/status").read()
cap_eff = [l.split()[1] for l in status.splitlines() if l.startswith("CapEff")][0]
print(json.dumps({"remount": remount, "write_outside": write(outside), "write_writable": \
write(writable),
  "read_root": os.path.exists(secret), "tmp_socket": connect(tmp_sock), "run_socket": \
connect(run_sock),
  "project_socket": connect(project_sock), "var_socket": connect(var_sock), "dgram_pair_send": \
dgram_pair_send(dgram_sock),
  "stream_pair": stream_pair(), "io_uring_enosys": io_uring_enosys(), "i386_socket": i386_socket(),
  "capabilities": int(cap_eff, 16) != 0, "shadow": readable("/etc/shadow")}))
`;

let scratch: string;
let project: string;
let writableRoot: string;
let secret: string | null = null;
let tmpSocket: string;
let runSocket: string;
let projectSocket: string;
let varSocket: string;
let dgramSocket: string;
const servers: Server[] = [];
let dgramServer: ReturnType<typeof Bun.spawn> | null = null;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "flameox-contain-"));
  chmodSync(scratch, 0o755);
  project = join(scratch, "project");
  writableRoot = join(project, "out");
  mkdirSync(join(project, ".diagnostics", "capture"), { recursive: true });
  mkdirSync(writableRoot, { recursive: true });
  chmodSync(project, 0o755);
  chmodSync(writableRoot, 0o777);
  writeFileSync(join(project, "source.txt"), "original");
  chmodSync(join(project, "source.txt"), 0o666);
  writeFileSync(join(project, "attack.py"), ATTACK);
  chmodSync(join(project, "attack.py"), 0o644);
  if (IS_ROOT && existsSync("/root")) {
    secret = join("/root", `.flameox-contain-secret-${process.pid}`);
    writeFileSync(secret, "secret");
  }
  tmpSocket = join(scratch, "host.sock");
  runSocket =
    existsSync("/run") && IS_ROOT
      ? `/run/flameox-contain-${process.pid}.sock`
      : join(scratch, "run.sock");
  // Sockets outside every hidden directory: in the project (bound back read-only) and, as root,
  // under /var/lib.
  projectSocket = join(project, "daemon.sock");
  varSocket =
    IS_ROOT && existsSync("/var/lib")
      ? `/var/lib/flameox-contain-${process.pid}.sock`
      : join(project, "var.sock");
  dgramSocket = join(project, "dgram.sock");
  dgramServer = Bun.spawn(
    [
      PYTHON ?? "/usr/bin/python3",
      "-c",
      `import socket,os,sys,time\ns=socket.socket(socket.AF_UNIX,` +
        `socket.SOCK_DGRAM)\ns.bind(sys.argv[1])\nos.chmod(sys.argv[1],0o777)\nprint("ready",` +
        `flush=True)\ntime.sleep(600)`,
      dgramSocket,
    ],
    { stdout: "pipe", stderr: "ignore" },
  );
  await (dgramServer.stdout as ReadableStream<Uint8Array>).getReader().read();
  for (const path of [tmpSocket, runSocket, projectSocket, varSocket]) {
    const server = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(path, resolve));
    chmodSync(path, 0o777);
    servers.push(server);
  }
});

afterAll(() => {
  for (const server of servers) server.close();
  if (secret) rmSync(secret, { force: true });
  dgramServer?.kill();
  for (const path of [runSocket, varSocket]) rmSync(path, { force: true });
  rmSync(scratch, { recursive: true, force: true });
});

type Outcome = Record<
  | "remount"
  | "write_outside"
  | "write_writable"
  | "read_root"
  | "tmp_socket"
  | "run_socket"
  | "project_socket"
  | "var_socket"
  | "dgram_pair_send"
  | "stream_pair"
  | "io_uring_enosys"
  | "capabilities"
  | "shadow",
  boolean
> & {
  /** null where the kernel has no IA-32 emulation (the call kills the process everywhere). */
  i386_socket: boolean | null;
};

async function attack(options: { sandboxed: boolean; unprivileged: boolean }): Promise<Outcome> {
  const script = [
    PYTHON!,
    join(project, "attack.py"),
    join(project, "source.txt"),
    join(writableRoot, "planted.txt"),
    secret ?? "/root/.none",
    tmpSocket,
    runSocket,
    projectSocket,
    varSocket,
    dgramSocket,
  ];
  const layout = {
    projectRoot: project,
    diagnosticsDir: join(project, ".diagnostics"),
    writableRoots: [writableRoot],
    outputDir: join(project, ".diagnostics", "capture"),
    cwd: project,
    privateDirs: privateDirectories(process.env.HOME),
  };
  const inner = options.sandboxed ? bubblewrapArgv(BWRAP!, layout, script) : script;
  const argv = options.unprivileged
    ? [SETPRIV!, "--reuid=65534", "--regid=65534", "--clear-groups", ...inner]
    : inner;
  const result = await runProcess({
    argv,
    cwd: project,
    env: { PATH: "/usr/bin:/bin" },
    deadlineAt: Date.now() + 20_000,
    maxOutputBytes: 64 * 1024,
  });
  writeFileSync(join(project, "source.txt"), "original");
  rmSync(join(writableRoot, "planted.txt"), { force: true });
  if (result.termination.kind !== "exited" || result.termination.exitCode !== 0)
    throw new Error(`attack script failed: ${result.stderr}`);
  return JSON.parse(result.stdout) as Outcome;
}

const UNCONTAINED: Outcome = {
  remount: true,
  write_outside: true,
  write_writable: true,
  read_root: true,
  tmp_socket: true,
  run_socket: true,
  project_socket: true,
  var_socket: true,
  dgram_pair_send: true,
  stream_pair: true,
  io_uring_enosys: false,
  i386_socket: true,
  capabilities: true,
  shadow: true,
};
const CONTAINED: Outcome = {
  remount: false,
  write_outside: false,
  write_writable: true,
  read_root: false,
  tmp_socket: false,
  run_socket: false,
  project_socket: false,
  var_socket: false,
  dgram_pair_send: false,
  stream_pair: true,
  io_uring_enosys: true,
  i386_socket: false,
  capabilities: false,
  shadow: false,
};

describe.skipIf(!BWRAP || !PYTHON)("managed containment holds", () => {
  test.skipIf(!IS_ROOT)(
    "as root: the attacks work on the host, and none of them inside the sandbox",
    async () => {
      const host = await attack({ sandboxed: false, unprivileged: false });
      const ia32 = host.i386_socket === null ? { i386_socket: null } : {};
      expect(host).toEqual({ ...UNCONTAINED, read_root: secret !== null, ...ia32 });
      const contained = await attack({ sandboxed: true, unprivileged: false });
      expect(contained).toEqual({ ...CONTAINED, ...ia32 });
    },
  );

  test.skipIf(!IS_ROOT || !SETPRIV)(
    "as an unprivileged user (uid 65534): the same attacks fail inside the sandbox, or the " +
      "capability is reported unavailable",
    async () => {
      const host = await attack({ sandboxed: false, unprivileged: true });
      expect(host).toMatchObject({
        write_outside: true,
        write_writable: true,
        tmp_socket: true,
        run_socket: true,
        project_socket: true,
        var_socket: true,
        dgram_pair_send: true,
        stream_pair: true,
        io_uring_enosys: false,
      });
      let contained: Outcome;
      try {
        contained = await attack({ sandboxed: true, unprivileged: true });
      } catch (error) {
        // Only acceptable when this host forbids unprivileged user namespaces; say so.
        const message = String(error);
        expect(message).toMatch(/user namespace|uid map|Operation not permitted|No space left/i);
        console.warn(
          `unprivileged managed containment unavailable on this host: ${message.split("\n")[0]}`,
        );
        return;
      }
      expect(contained).toEqual({
        ...CONTAINED,
        ...(host.i386_socket === null ? { i386_socket: null } : {}),
      });
    },
  );

  test.skipIf(!IS_ROOT || !SETPRIV || !CHECKOUT_REACHABLE)(
    "as an unprivileged user (uid 65534): the behaviour probe proves the sandbox, or reports " +
      "why not",
    async () => {
      const script = join(scratch, "probe-as-user.ts");
      writeFileSync(
        script,
        `import { probeSandbox } ` +
          `from ${JSON.stringify(join(REPO, "src", "broker", "sandbox-probe.ts"))}` +
          `;\nconsole.log(JSON.stringify(await probeSandbox(${JSON.stringify(BWRAP)}, ` +
          `"/nonexistent")));\n`,
      );
      chmodSync(script, 0o644);
      const result = await runProcess({
        argv: [
          SETPRIV!,
          "--reuid=65534",
          "--regid=65534",
          "--clear-groups",
          process.execPath,
          script,
        ],
        cwd: scratch,
        env: { PATH: "/usr/bin:/bin", HOME: "/nonexistent", TMPDIR: "/tmp" },
        deadlineAt: Date.now() + 30_000,
        maxOutputBytes: 64 * 1024,
      });
      const probed = JSON.parse(result.stdout) as {
        proven: boolean;
        seen: boolean;
        reason: string;
        stderr: string;
      };
      if (!probed.proven) {
        expect(probed.seen).toBe(false);
        expect(probed.stderr).toMatch(
          /user namespace|uid map|Operation not permitted|No space left/i,
        );
        console.warn(`unprivileged managed containment unavailable on this host: ${probed.reason}`);
        return;
      }
      expect(probed.reason).toContain("seen from the host");
    },
  );

  test("the behaviour probe proves the system bwrap from the host side", async () => {
    const probed = await probeSandbox(BWRAP!, process.env.HOME);
    expect(probed.reason).toContain("seen from the host");
    expect(probed).toMatchObject({ proven: true, seen: true });
    expect(Object.values(probed.checks).every(Boolean)).toBe(true);
    // With util-linux logger on the host, the filter's effect was tried, not only its presence.
    if (existsSync("/usr/bin/logger") || existsSync("/bin/logger"))
      expect(probed.reason).toContain("was refused to a process inside");
  });

  test("a fake bwrap that runs the command without isolating it is not a sandbox", async () => {
    const fake = join(scratch, "fake-bin", "bwrap");
    mkdirSync(join(scratch, "fake-bin"), { recursive: true });
    writeFileSync(
      fake,
      '#!/bin/sh\nwhile [ "$#" -gt 0 ] && [ "$1" != "--" ]; do shift; done\nshift\nexec "$@"\n',
    );
    chmodSync(fake, 0o755);
    const probed = await probeSandbox(fake, process.env.HOME);
    expect(probed).toMatchObject({ proven: false, seen: true });
    expect(probed.checks.network_namespace).toBe(false);
    expect(probed.checks.no_capabilities).toBe(!IS_ROOT);
    // And a fixed root-owned bwrap is preferred over the first one on PATH.
    const located = locateBubblewrap(`${join(scratch, "fake-bin")}:/usr/bin:/bin`, project);
    expect(located).toMatchObject({ trustedPath: true, executable: { path: BWRAP } });
  });
});
