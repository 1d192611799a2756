/**
 * `flameox open`: the profile is served with speedscope's own build on 127.0.0.1 only,
 * under an unguessable path, nothing outside the viewer's files is reachable, speedscope's
 * importer reads the export (the page takes the profile's name), and Ctrl-C stops it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { cli, REPO, SAMPLES, tempWorkspace } from "../helpers.ts";

let root: string;
let cleanup: () => void;
let profile: string;
const CHROMIUM = Bun.which("chromium");
if (!CHROMIUM)
  console.warn("viewer: chromium is absent; speedscope's reading of the export is not checked");

beforeAll(async () => {
  ({ root, cleanup } = await tempWorkspace());
  profile = (await cli(["import", join(SAMPLES, "sample.cpuprofile"), "--json"], { cwd: root }))
    .json.artifact_id;
}, 60_000);
afterAll(() => cleanup());

test("serves the export to speedscope on loopback until interrupted", async () => {
  const child = Bun.spawn(
    [
      process.execPath,
      join(REPO, "src/cli/main.ts"),
      "open",
      profile,
      "--timeout",
      "120",
      "--json",
    ],
    {
      cwd: root,
      env: { ...process.env, NO_COLOR: "1" },
      stdout: "pipe",
      stderr: "pipe",
    },
  );
  const reader = child.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  const { url } = JSON.parse(text.slice(0, text.indexOf("\n")));
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{24}\/#profileURL=/);
  const base = url.slice(0, url.indexOf("#"));
  expect((await fetch(base)).status).toBe(200);
  const served = (await (await fetch(`${base}profile.speedscope.json`)).json()) as {
    profiles: { type: string }[];
  };
  expect(served.profiles[0]?.type).toBe("sampled");
  const origin = new URL(base).origin;
  expect((await fetch(`${origin}/`)).status).toBe(404); // no token, nothing
  expect((await fetch(`${base}..%2F..%2Fpackage.json`)).status).toBe(404);
  expect((await fetch(`${base}index.html/../../../package.json`)).status).toBe(404);
  if (CHROMIUM) {
    const dom = Bun.spawnSync(
      [CHROMIUM, "--headless", "--no-sandbox", "--virtual-time-budget=8000", "--dump-dom", url],
      { stderr: "ignore" },
    );
    expect(dom.stdout.toString()).toContain(`<title>${profile} - speedscope`);
  }
  child.kill("SIGINT");
  await child.exited;
  let rest = text.slice(text.indexOf("\n") + 1);
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    rest += new TextDecoder().decode(value);
  }
  expect(child.exitCode).toBe(0);
  expect(JSON.parse(rest)).toMatchObject({
    stopped_by: "signal",
    format: "speedscope",
    subject: profile,
  });
}, 90_000);
