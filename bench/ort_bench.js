// Times ONNX Runtime (CPU, THREADS intra-op threads (default 1), all graph
// optimisations) on one model:
//   node ort_bench.js MODEL INPUT.bin SHAPE(1x3x224x224) RUNS [THREADS]
// Prints one JSON line: {"median_us":..., "p99_us":..., "rss_bytes":...}.
const ort = require('onnxruntime-node');
const fs = require('fs');

async function main() {
  const [model, inputPath, shapeText, runsText, threadsText] = process.argv.slice(2);
  const shape = shapeText.split('x').map(Number);
  // A small file's Buffer is a view into a shared pool: copy its own bytes.
  const bytes = fs.readFileSync(inputPath);
  const data = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: Number(threadsText || 1),
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
  });
  const feeds = {[session.inputNames[0]]: new ort.Tensor('float32', data, shape)};
  for (let i = 0; i < 3; ++i) await session.run(feeds); // warm-up
  const times = [];
  for (let i = 0; i < Number(runsText); ++i) {
    const t0 = process.hrtime.bigint();
    await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  times.sort((a, b) => a - b);
  const p99 = times[Math.min(times.length - 1, Math.ceil(times.length * 0.99) - 1)];
  // VmHWM: this process's peak RSS.
  const hwm = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync('/proc/self/status', 'utf8'));
  console.log(JSON.stringify({median_us: times[times.length >> 1], p99_us: p99,
                              rss_bytes: hwm ? Number(hwm[1]) * 1024 : 0}));
}
main().catch((e) => { console.error(e); process.exit(1); });
