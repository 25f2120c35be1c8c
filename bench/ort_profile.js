// ONNX Runtime's own per-node profile of one model (CPU, one thread, all
// graph optimisations, as ort_bench.js runs it): RUNS inferences after
// three warm-ups, then prints one JSON line per node ORT ran:
// {"node", "op", "us"} with "us" its kernel time per run (ORT's profiler,
// which itself slows the run a little).
//   node ort_profile.js MODEL INPUT.bin SHAPE(1x3x224x224) RUNS
const ort = require('onnxruntime-node');
const fs = require('fs');
const os = require('os');
const path = require('path');

async function main() {
  const [model, inputPath, shapeText, runsText] = process.argv.slice(2);
  const shape = shapeText.split('x').map(Number);
  const bytes = fs.readFileSync(inputPath);
  const data = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const options = {intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all',
                   executionMode: 'sequential'};
  const feeds = (s) => ({[s.inputNames[0]]: new ort.Tensor('float32', data, shape)});
  const warm = await ort.InferenceSession.create(model, options);
  for (let i = 0; i < 3; ++i) await warm.run(feeds(warm));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ort-profile-'));
  const session = await ort.InferenceSession.create(
      model, {...options, enableProfiling: true, profileFilePrefix: path.join(dir, 'p')});
  const runs = Number(runsText);
  for (let i = 0; i < runs + 3; ++i) await session.run(feeds(session));
  session.endProfiling();
  const file = fs.readdirSync(dir).find((f) => f.endsWith('.json'));
  const events = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
  fs.rmSync(dir, {recursive: true});
  // Node events of the last RUNS runs (the first three warm the session).
  const kernels = events.filter((e) => e.cat === 'Node' && e.name.endsWith('_kernel_time'));
  const perRun = kernels.length / (runs + 3);
  const totals = new Map();
  for (const e of kernels.slice(kernels.length - perRun * runs)) {
    const node = e.name.slice(0, -'_kernel_time'.length);
    const t = totals.get(node) || {op: e.args.op_name, us: 0};
    t.us += e.dur / runs;
    totals.set(node, t);
  }
  for (const [node, t] of totals) console.log(JSON.stringify({node, op: t.op, us: t.us}));
}
main().catch((e) => { console.error(e); process.exit(1); });
