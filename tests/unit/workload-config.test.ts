/**
 * flameox.toml: strict validation with exact paths, template rules, parameter domains and canonical
 * digests.
 */
import { describe, expect, test } from "bun:test";
import { parseProjectConfig } from "../../src/domain/workload/project-config.ts";
import { expandTemplate, templateParameters } from "../../src/domain/workload/template.ts";
import { instantiateWorkload } from "../../src/domain/workload/workload-instance.ts";

const valid = (text: string) => {
  const parsed = parseProjectConfig(text);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.diagnostics));
  return parsed.config;
};
const problems = (text: string) => {
  const parsed = parseProjectConfig(text);
  if (parsed.ok) throw new Error("expected diagnostics");
  return parsed.diagnostics;
};

describe("flameox.toml validation", () => {
  test("an unknown key fails with its exact path, every problem at once", () => {
    const found = problems(`
[workloads.a]
argv = ["node", "x.js"]
timout_seconds = 5
[workloads.a.oracle]
strength = "execution_check"
argv = ["true"]
extra = 1
[surprise]
x = 1
`);
    expect(found.map((d) => d.path).sort()).toEqual([
      "surprise",
      "workloads.a.oracle.extra",
      "workloads.a.timout_seconds",
    ]);
  });

  test(
    "rules beyond shape: names, undeclared tokens, stripped variables, paths outside the root, " +
      "template executables",
    () => {
      const found = problems(`
[workloads.Bad]
argv = ["x"]
[workloads.b]
argv = ["{tool}", "--n={size}"]
cwd = "../elsewhere"
writable_paths = [".diagnostics/x"]
environment = { LD_PRELOAD = "evil.so", GITHUB_TOKEN = "t", OK = "fine" }
`);
      const byPath = Object.fromEntries(found.map((d) => [d.path, d.message]));
      expect(byPath["workloads.Bad"]).toContain("must match");
      expect(
        found.some(
          (d) => d.path === "workloads.b.argv[0]" && d.message.includes("cannot be a template"),
        ),
      ).toBe(true);
      expect(
        found.some((d) => d.path === "workloads.b.argv[1]" && d.message.includes("{size}")),
      ).toBe(true);
      expect(byPath["workloads.b.cwd"]).toContain("inside the project root");
      expect(byPath["workloads.b.writable_paths[0]"]).toContain(".diagnostics");
      expect(byPath["workloads.b.environment.LD_PRELOAD"]).toContain("never passes it");
      expect(byPath["workloads.b.environment.GITHUB_TOKEN"]).toContain("never passes it");
      expect(byPath["workloads.b.environment.OK"]).toBeUndefined();
    },
  );

  test(
    "parameter domains: choices, integer ranges with defaults, and defaults outside the domain " +
      "refused",
    () => {
      expect(
        problems(
          `[workloads.a]\nargv = ["x", "{n}"]\nparameters = { n = { minimum = 5, maximum = 1, ` +
            `default = 3 } }`,
        )[0]!.message,
      ).toContain("greater than maximum");
      expect(
        problems(
          `[workloads.a]\nargv = ["x", "{n}"]\nparameters = { n = { choices = [1, 2], default ` +
            `= 3 } }`,
        )[0]!.message,
      ).toContain("not one of the choices");
      const config = valid(
        `[workloads.a]\nargv = ["x", "{n}", "{m}"]\nparameters = { n = [1, 2], m = { minimum = ` +
          `1, maximum = 9, default = 4 } }`,
      );
      expect(config.workloads.a!.parameters.m).toEqual({
        kind: "integer_range",
        minimum: 1,
        maximum: 9,
        default: 4,
      });
    },
  );

  test(
    "the definition digest ignores formatting, comments and spelled-out defaults, and changes " +
      "with the command",
    () => {
      const a = valid(`# comment\n[workloads.a]\nargv = ["node", "x.js"]\n`);
      const b = valid(
        `[workloads.a]   # trailing\nargv = [ "node",\n  "x.js" ]\ncwd = "."\ntimeout_seconds ` +
          `= 300\n`,
      );
      const c = valid(`[workloads.a]\nargv = ["node", "y.js"]\n`);
      expect(a.workloads.a!.workload_definition_id).toBe(b.workloads.a!.workload_definition_id);
      expect(a.workloads.a!.workload_definition_id).not.toBe(c.workloads.a!.workload_definition_id);
      expect(a.configuration_id).not.toBe(c.configuration_id);
      expect(a.workloads.a!.workload_definition_id).toMatch(/^sha256:[0-9a-f]{64}$/);
    },
  );

  test("other features' sections are accepted as tables and count in the configuration id", () => {
    const config = valid(`[workloads.a]\nargv = ["x"]\n[experiments.e]\nworkload = "a"\n`);
    expect(Object.keys(config.document)).toEqual(["workloads", "experiments"]);
  });
});

describe("argv templates", () => {
  test(
    "only exact plain tokens substitute; {{ is a literal brace; other braces pass " + "through",
    () => {
      expect(templateParameters('--json={"size": {size}} {{size} {size')).toEqual(["size"]);
      expect(expandTemplate('--json={"size": {size}} {{size} {size', { size: "7" })).toBe(
        '--json={"size": 7} {size} {size',
      );
      expect(expandTemplate("{a}{b}-{ c }", { a: "1", b: "2" })).toBe("12-{ c }");
    },
  );

  test(
    "instances take values only from the domain, exactly typed, and shell metacharacters stay " +
      "bytes",
    () => {
      const config = valid(
        `[workloads.a]\nargv = ["x", "{n}", "{s}"]\nparameters = { n = [1, 2], s = ["$(touch ` +
          `pwned); echo *", "plain"] }`,
      );
      const def = config.workloads.a!;
      const instance = instantiateWorkload(def, { n: 2, s: "$(touch pwned); echo *" });
      expect(instance.argv).toEqual(["x", "2", "$(touch pwned); echo *"]);
      expect(instance.workload_instance_id).not.toBe(
        instantiateWorkload(def, { n: 1, s: "plain" }).workload_instance_id,
      );
      expect(() => instantiateWorkload(def, { n: "2", s: "plain" })).toThrow(/not a valid n/);
      expect(() => instantiateWorkload(def, { n: 3, s: "plain" })).toThrow(/not a valid n/);
      expect(() => instantiateWorkload(def, { n: 1 })).toThrow(/s has no value/);
      expect(() => instantiateWorkload(def, { n: 1, s: "plain", zz: 1 })).toThrow(
        /zz is not a declared parameter/,
      );
    },
  );
});
