// Runs ONNX Runtime (CPU, one thread, all graph optimisations) once on one
// float input and writes its first output's float32 data:
//   node ort_run.js MODEL INPUT.bin SHAPE(1x3x224x224) OUTPUT.bin
// or, with --all, every output's into OUTPUT/0.bin, OUTPUT/1.bin, ... (in
// the graph's order; quant_trace.py).
// The parity checks of quantized models (ORT's own integer kernels on a QDQ
// model) compare against it.
const ort = require('onnxruntime-node');
const fs = require('fs');

async function main() {
  const [model, inputPath, shapeText, outputPath, all] = process.argv.slice(2);
  const shape = shapeText.split('x').map(Number);
  // A small file's Buffer is a view into a shared pool: copy its own bytes.
  const bytes = fs.readFileSync(inputPath);
  const data = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all',
  });
  const out = await session.run({[session.inputNames[0]]: new ort.Tensor('float32', data, shape)});
  const raw = (y) => Buffer.from(y.data.buffer, y.data.byteOffset, y.data.byteLength);
  if (all === '--all') {
    session.outputNames.forEach((name, i) => fs.writeFileSync(`${outputPath}/${i}.bin`, raw(out[name])));
    return;
  }
  const y = out[session.outputNames[0]];
  fs.writeFileSync(outputPath, raw(y));
  console.log(JSON.stringify({output: session.outputNames[0], dims: y.dims}));
}
main().catch((e) => { console.error(e); process.exit(1); });
