/**
 * A parse worker must not outlive the flameox process that started it: it leads its own
 * process group (so a terminal's signals do not reach it), and once reparented nothing
 * would stop it writing into staging. On Linux the kernel delivers SIGKILL when the
 * parent dies (PR_SET_PDEATHSIG, through bun:ffi). The signal follows the parent
 * *thread* that forked the worker; Bun forks from its main thread, which lives as long as
 * the process. If the owner died before the signal was armed, the parent is already
 * someone else and the worker exits at once. Where prctl is unavailable a timer watches
 * the parent id instead (it cannot fire during a long synchronous parse, so it is only a
 * fallback; `flameox recover` also stops workers whose owner is gone).
 */
const PR_SET_PDEATHSIG = 1;
const SIGKILL = 9;
/** The owning flameox process, set by the parent in the worker's environment. */
export const OWNER_PID_VARIABLE = "FLAMEOX_OWNER_PID";

export async function dieWithOwner(): Promise<void> {
  const owner = Number(process.env[OWNER_PID_VARIABLE]);
  if (!Number.isInteger(owner) || owner <= 0) return;
  const getppid = (await armDeathSignal()) ?? (() => process.ppid);
  if (getppid() !== owner) process.kill(process.pid, "SIGKILL");
  setInterval(() => {
    if (getppid() !== owner) process.kill(process.pid, "SIGKILL");
  }, 500).unref();
}

/** Arms PR_SET_PDEATHSIG; returns libc's getppid when it did, null when it could not. */
async function armDeathSignal(): Promise<(() => number) | null> {
  if (process.platform !== "linux") return null;
  try {
    const { dlopen, FFIType } = await import("bun:ffi");
    const libc = dlopen("libc.so.6", {
      prctl: {
        args: [FFIType.i32, FFIType.u64, FFIType.u64, FFIType.u64, FFIType.u64],
        returns: FFIType.i32,
      },
      getppid: { args: [], returns: FFIType.i32 },
    });
    if (libc.symbols.prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) !== 0) return null;
    return () => libc.symbols.getppid();
  } catch {
    return null;
  }
}
