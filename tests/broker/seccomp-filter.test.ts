/**
 * The sandbox's seccomp program as bytes: well-formed classic BPF (8-byte records, every
 * jump forward and inside the program, every path ending in a return), built for x86_64
 * only; elsewhere there is none and the probe says containment is unavailable.
 */
import { describe, expect, test } from "bun:test";
import { sandboxSeccompProgram } from "../../src/broker/seccomp-filter.ts";
import { probeSandbox } from "../../src/broker/sandbox-probe.ts";

const RET = 0x06;
const JMP = 0x05;

describe("sandbox seccomp program", () => {
  test("x86_64: every instruction is reachable-safe and the first checks the architecture", () => {
    const program = sandboxSeccompProgram("x64")!;
    expect(program.length % 8).toBe(0);
    const view = new DataView(program.buffer);
    const count = program.length / 8;
    expect(view.getUint16(0, true)).toBe(0x20); // ld [arch]
    expect(view.getUint32(4, true)).toBe(4);
    expect(view.getUint32(12, true)).toBe(0xc000003e);
    for (let i = 0; i < count; i++) {
      const code = view.getUint16(i * 8, true);
      if ((code & 0x07) === JMP) {
        for (const offset of [view.getUint8(i * 8 + 2), view.getUint8(i * 8 + 3)])
          expect(i + 1 + offset).toBeLessThan(count);
      }
    }
    expect(view.getUint16((count - 1) * 8, true) & 0x07).toBe(RET);
  });

  test("no program for another architecture, and the probe refuses containment there", async () => {
    expect(sandboxSeccompProgram("arm64")).toBeNull();
    expect(sandboxSeccompProgram("ia32")).toBeNull();
    if (process.arch !== "x64") {
      const probed = await probeSandbox("/usr/bin/bwrap", process.env.HOME);
      expect(probed.proven).toBe(false);
      expect(probed.reason).toContain("no seccomp program");
    }
  });
});
