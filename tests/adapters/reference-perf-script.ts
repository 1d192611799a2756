/**
 * An independent reading of `perf script` text for tests, done differently from the
 * adapter: the text is cut into samples at blank lines (stackcollapse-perf.pl's rule),
 * a sample's event is the last `word:` of its first line, its period the number before
 * it, and its leaf the first frame line; names lose their `+0x..` offset and V8's
 * `JS:*`-style prefixes by plain string operations. Per event: self samples and summed
 * periods per leaf function name.
 */
export interface ReferenceEvent {
  event: string;
  hasPeriod: boolean;
  samples: number;
  /** Samples with at least one frame. */
  attributed: number;
  periodSum: number;
  selfSamples: Map<string, number>;
  selfPeriod: Map<string, number>;
}

function leafName(frameLine: string): string {
  let text = frameLine.trim();
  text = text.replace(/^\S+\s/, "").trim(); // drop the address (perf: a space; simpleperf: a tab)
  let dso = "";
  if (text.endsWith(")")) {
    let depth = 0;
    for (let i = text.length - 1; i >= 0; i--) {
      if (text[i] === ")") depth++;
      else if (text[i] === "(" && --depth === 0) {
        dso = text.slice(i + 1, -1);
        text = text.slice(0, i).trim();
        break;
      }
    }
  }
  const plus = text.lastIndexOf("+0x");
  if (plus > 0 && /^\+0x[0-9a-f]+$/i.test(text.slice(plus))) text = text.slice(0, plus);
  if (/perf-\d+\.map$/.test(dso) && text !== "[unknown]") {
    const colon = text.indexOf(":");
    if (colon > 0 && /^[A-Za-z]+$/.test(text.slice(0, colon))) {
      text = text.slice(colon + 1).trim();
      if ("~^+*".includes(text[0] ?? "")) text = text.slice(1);
      const space = text.lastIndexOf(" ");
      if (space > 0 && /:\d+$/.test(text)) text = text.slice(0, space).trim();
    }
  }
  // simpleperf names an address without a symbol after its file:
  // `libc.so[+1f2c] (/system/lib/libc.so)`.
  const bracket = text.lastIndexOf("[+");
  if (bracket > 0 && text.endsWith("]") && dso.split("/").pop() === text.slice(0, bracket))
    return "[unknown]";
  return text === "" ? "[unknown]" : text;
}

export function referencePerfScript(text: string): ReferenceEvent[] {
  const events = new Map<string, ReferenceEvent>();
  const body = text.replace(/\r\n/g, "\n");
  // perf script -G prints each sample on one line, its frame after the event: make it two lines.
  const oneLine = /^\s*\S.*\d+\.\d+:\s+\S+:\s+[0-9a-f]+ \S/;
  const blocks =
    body.split("\n").filter((l) => oneLine.test(l)).length > 1
      ? body
          .split("\n")
          .map((l) => l.replace(/^(.*\d+\.\d+:\s+\S+:)\s+([0-9a-f]+ .*)$/, "$1\n\t$2"))
      : body.split(/\n[ \t]*\n/);
  for (const block of blocks) {
    const lines = block.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("#"));
    if (lines.length === 0) continue;
    const words = lines[0]!.trim().split(/\s+/);
    let e = words.length - 1;
    while (e >= 0 && !words[e]!.endsWith(":")) e--;
    const last = words[e]!;
    const isTime = /^\d+\.\d+:$/.test(last);
    const event = isTime ? "" : last.slice(0, -1);
    const before = words[e - 1] ?? "";
    const hasPeriod = !isTime && /^\d+$/.test(before) && !/^\d+\.\d+:$/.test(before) && e >= 3;
    const ref = events.get(event) ?? {
      event,
      hasPeriod,
      samples: 0,
      attributed: 0,
      periodSum: 0,
      selfSamples: new Map(),
      selfPeriod: new Map(),
    };
    events.set(event, ref);
    ref.samples++;
    if (lines.length < 2) continue;
    const leaf = leafName(lines[1]!);
    const period = hasPeriod ? Number(before) : 1;
    ref.attributed++;
    ref.periodSum += period;
    ref.selfSamples.set(leaf, (ref.selfSamples.get(leaf) ?? 0) + 1);
    ref.selfPeriod.set(leaf, (ref.selfPeriod.get(leaf) ?? 0) + period);
  }
  return [...events.values()];
}
