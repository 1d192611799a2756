import { chromeTraceAdapter } from "/work/throughput/src/adapters/chrome-trace/adapter.ts";
import { DEFAULT_ADAPTER_LIMITS } from "/work/throughput/src/adapters/adapter.ts";

const path = process.argv[2]!;
const bytes = await Bun.file(path).bytes();
async function* chunks() { for (let at = 0; at < bytes.length; at += 1 << 20) yield bytes.subarray(at, Math.min(bytes.length, at + (1 << 20))); }
const t0 = performance.now(); const c0 = process.cpuUsage();
let rows = 0;
const ev = await chromeTraceAdapter.extractStream!({ chunks: chunks(), displayName: "x", limits: DEFAULT_ADAPTER_LIMITS, sink: { writeBatch: async (b) => void (rows += b.length) } });
const c1 = process.cpuUsage(c0);
console.log(`pipeline ${(performance.now() - t0).toFixed(0)} ms, cpu ${((c1.user + c1.system) / 1000).toFixed(0)} ms, rows ${rows}, ${(bytes.length / 1048576 / ((performance.now() - t0) / 1000)).toFixed(1)} MB/s`);
