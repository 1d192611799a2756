/**
 * An independent, deliberately simple computation of per-function self CPU time from a
 * raw V8 profile: absolute sample times from the deltas, each sample lasting until the
 * next one (the last until endTime, or the mean when endTime is unusable), summed per
 * "function name @ url". It shares the convention with the adapter, not the code.
 */
interface RawCallFrame {
  functionName?: string;
  url?: string;
}

interface RawNode {
  id: number;
  callFrame?: RawCallFrame;
  functionName?: string;
  url?: string;
  children?: (number | RawNode)[];
  parent?: number;
}

export interface RawSampledProfile {
  nodes: RawNode[];
  samples: number[];
  /** Absolute sample times in µs; `endUs` closes the last sample when usable. */
  timesUs: number[];
  endUs: number | null;
}

export interface ReferenceCpuSelf {
  selfUs: number;
  samples: number;
}

export function functionKey(name: string | undefined, url: string | undefined | null): string {
  return `${name ? name : "(anonymous)"} @ ${url ?? ""}`;
}

/** Modern `{nodes, samples, timeDeltas}` and legacy `{head, samples, timestamps}` profiles. */
export function rawProfileOf(profile: Record<string, unknown>): RawSampledProfile {
  const samples = (profile.samples ?? []) as number[];
  if (profile.head) {
    const nodes: RawNode[] = [];
    const walk = (node: RawNode) => {
      nodes.push(node);
      for (const child of node.children ?? []) walk(child as RawNode);
    };
    walk(profile.head as RawNode);
    const stamps = (profile.timestamps ?? []) as number[];
    const end = stamps.length > samples.length ? stamps[samples.length]! : null;
    return { nodes, samples, timesUs: stamps.slice(0, samples.length), endUs: end };
  }
  const deltas = (profile.timeDeltas ?? []) as number[];
  const timesUs: number[] = [];
  let t = (profile.startTime as number | undefined) ?? 0;
  for (let i = 0; i < samples.length; i++) timesUs.push((t += deltas[i] ?? 0));
  return {
    nodes: profile.nodes as RawNode[],
    samples,
    timesUs,
    endUs: (profile.endTime as number | undefined) ?? null,
  };
}

export function referenceCpuSelf(raw: RawSampledProfile): Map<string, ReferenceCpuSelf> {
  const byId = new Map<number, RawNode>();
  const parentOf = new Map<number, number>();
  for (const node of raw.nodes) byId.set(node.id, node);
  for (const node of raw.nodes) {
    for (const child of node.children ?? [])
      parentOf.set(typeof child === "number" ? child : child.id, node.id);
    if (typeof node.parent === "number") parentOf.set(node.id, node.parent);
  }
  // A node counts only if every ancestor is present (embedded profiles can lose chunks).
  const complete = (id: number): boolean => {
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at))
      if (!byId.has(at)) return false;
    return true;
  };
  const n = raw.samples.length;
  const durations: number[] = [];
  for (let i = 0; i + 1 < n; i++)
    durations.push(Math.max(0, raw.timesUs[i + 1]! - raw.timesUs[i]!));
  if (n > 0) {
    const untilEnd = raw.endUs === null ? -1 : raw.endUs - raw.timesUs[n - 1]!;
    const mean = n > 1 ? durations.reduce((a, b) => a + b, 0) / (n - 1) : 0;
    durations.push(untilEnd >= 0 ? untilEnd : mean);
  }
  const out = new Map<string, ReferenceCpuSelf>();
  raw.samples.forEach((id, i) => {
    const node = byId.get(id);
    if (!node || !complete(id)) return;
    const frame = node.callFrame ?? node;
    if (frame.functionName === "(root)" && !parentOf.has(id)) return;
    const key = functionKey(frame.functionName, frame.url);
    const entry = out.get(key) ?? { selfUs: 0, samples: 0 };
    entry.selfUs += durations[i]!;
    entry.samples++;
    out.set(key, entry);
  });
  return out;
}

/** Profiles embedded in a Chrome trace, reassembled (chunks in ts order, keyed by pid and id). */
export function embeddedProfiles(events: readonly Record<string, unknown>[]): RawSampledProfile[] {
  const result: RawSampledProfile[] = [];
  const chunked = new Map<
    string,
    { start: number | null; chunks: { ts: number; data: Record<string, any> }[] }
  >();
  for (const e of events) {
    const data = (e?.args as { data?: Record<string, any> } | undefined)?.data;
    if (e?.name === "CpuProfile" && data?.cpuProfile) result.push(rawProfileOf(data.cpuProfile));
    if (e?.name !== "Profile" && e?.name !== "ProfileChunk") continue;
    const key = `${e.pid}/${e.id}`;
    const entry = chunked.get(key) ?? { start: null, chunks: [] };
    chunked.set(key, entry);
    if (e.name === "Profile")
      entry.start = typeof data?.startTime === "number" ? data.startTime : (e.ts as number);
    else if (data) entry.chunks.push({ ts: e.ts as number, data });
  }
  for (const { start, chunks } of chunked.values()) {
    if (start === null) continue;
    chunks.sort((a, b) => a.ts - b.ts);
    const nodes = chunks.flatMap((c) => c.data.cpuProfile?.nodes ?? []);
    const samples = chunks.flatMap((c) => c.data.cpuProfile?.samples ?? []);
    const timeDeltas = chunks.flatMap((c) => c.data.timeDeltas ?? []);
    const endTime = chunks
      .map((c) => c.data.endTime)
      .filter((t) => typeof t === "number")
      .pop();
    if (nodes.length === 0 && samples.length === 0) continue;
    result.push(rawProfileOf({ nodes, samples, timeDeltas, startTime: start, endTime }));
  }
  return result;
}
