/**
 * A managed capture, end to end, with a root workload that attacks its sandbox: the run
 * is labelled contained, and the remount, the write outside its writable root, the read
 * of /root and the connection to a host socket under /run all fail, while its writable
 * root works. The workload reports what it managed into its writable root. A host socket
 * outside every hidden directory (in the project itself) answers the same workload run
 * uncontained, and not contained.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { type CaptureProject, captureProject } from "./capture-helpers.ts";

const PYTHON = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : null;
const IS_ROOT = process.geteuid?.() === 0;
const SOCKET = `/run/flameox-managed-${process.pid}.sock`;
const SECRET = `/root/.flameox-managed-${process.pid}`;

const TOML = `# managed attack
[workloads.attack]
argv = ["${PYTHON}", "attack.py"]
writable_paths = ["out"]

[workloads.socket]
argv = ["${PYTHON}", "socket-probe.py"]
writable_paths = ["out"]
`;

const SOCKET_PROBE = `
import json, socket
try:
    s = socket.socket(socket.AF_UNIX); s.settimeout(2); s.connect("daemon.sock"); s.close(); ok = \
True
except OSError:
    ok = False
with open("out/socket.json", "w") as f: json.dump({"project_socket": ok}, f)
`;

const ATTACK = `
import json, os, socket, subprocess
def attempt(fn):
    try:
        fn(); return True
    except Exception:
        return False
def write(path):
    with open(path, "w") as f: f.write("planted")
def connect():
    s = socket.socket(socket.AF_UNIX); s.settimeout(2); s.connect(${JSON.stringify(SOCKET)}); \
s.close()
result = {
  "remount": subprocess.run(["mount", "-o", "remount,rw", "/"], capture_output=True).returncode == \
0,
  "write_project": attempt(lambda: write("planted.txt")),
  "read_root": os.path.exists(${JSON.stringify(SECRET)}),
  "host_socket": attempt(connect),
}
with open("out/result.json", "w") as f: json.dump(result, f)
`;

let p: CaptureProject;
let server: Server;
let projectServer: Server;
beforeAll(async () => {
  p = await captureProject(TOML, { git: false });
  writeFileSync(join(p.root, "attack.py"), ATTACK);
  writeFileSync(join(p.root, "socket-probe.py"), SOCKET_PROBE);
  mkdirSync(join(p.root, "out"));
  projectServer = createServer((s) => s.end());
  await new Promise<void>((resolve) => projectServer.listen(join(p.root, "daemon.sock"), resolve));
  if (IS_ROOT) {
    writeFileSync(SECRET, "secret");
    server = createServer((s) => s.end());
    await new Promise<void>((resolve) => server.listen(SOCKET, resolve));
  }
});
afterAll(() => {
  server?.close();
  projectServer?.close();
  rmSync(SOCKET, { force: true });
  rmSync(SECRET, { force: true });
  p.cleanup();
});

test.skipIf(!PYTHON || !IS_ROOT)(
  "as root: the run is contained and every attack fails; the writable root works",
  async () => {
    let result: Awaited<ReturnType<Awaited<ReturnType<typeof p.service.capture>>["run"]>>;
    try {
      result = await (await p.service.capture()).run({
        adapter: "command",
        workload: "attack",
        containment: "managed",
      });
    } catch (error) {
      expect(error).toMatchObject({ code: "CONTAINMENT_UNAVAILABLE" });
      return;
    }
    expect(result.containment).toMatchObject({
      mode: "managed",
      state: "contained",
      network: "denied",
    });
    expect(result.execution_status).toBe("succeeded");
    expect(JSON.parse(readFileSync(join(p.root, "out", "result.json"), "utf8"))).toEqual({
      remount: false,
      write_project: false,
      read_root: false,
      host_socket: false,
    });
    expect(existsSync(join(p.root, "planted.txt"))).toBe(false);
  },
);

test.skipIf(!PYTHON)(
  "a host Unix socket outside the hidden directories answers an uncontained run and not a " +
    "contained one",
  async () => {
    const capture = await p.service.capture();
    const uncontained = await capture.run({
      adapter: "command",
      workload: "socket",
      containment: "trusted_local",
    });
    expect(uncontained.execution_status).toBe("succeeded");
    expect(JSON.parse(readFileSync(join(p.root, "out", "socket.json"), "utf8"))).toEqual({
      project_socket: true,
    });
    rmSync(join(p.root, "out", "socket.json"));
    let contained: typeof uncontained;
    try {
      contained = await capture.run({
        adapter: "command",
        workload: "socket",
        containment: "managed",
      });
    } catch (error) {
      expect(error).toMatchObject({ code: "CONTAINMENT_UNAVAILABLE" });
      return;
    }
    expect(contained.containment).toMatchObject({ mode: "managed", state: "contained" });
    expect(JSON.parse(readFileSync(join(p.root, "out", "socket.json"), "utf8"))).toEqual({
      project_socket: false,
    });
  },
);
