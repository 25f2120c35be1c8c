// Runs a model in ONNX Runtime (CPU, one thread, all graph optimisations) on
// raw little-endian input files and writes each output as raw bytes; the
// reference outputs of the real-model set come from it.
//   node ort_reference.js MODEL SPEC.json OUT_DIR
// SPEC.json: {"inputs": [{"name", "type": "float32"|"int64", "dims", "file"}]}
// OUT_DIR gets output_N.bin and outputs.json ([{"name", "type", "dims"}]).
const path = require('path');
const fs = require('fs');
// onnxruntime-node lives in bench/ (the benchmark's peer); one install serves both.
const ort = require(path.join(__dirname, '..', '..', 'bench', 'node_modules', 'onnxruntime-node'));

const kArrays = {float32: Float32Array, int64: BigInt64Array};

async function main() {
  const [model, specPath, outDir] = process.argv.slice(2);
  const spec = JSON.parse(fs.readFileSync(specPath, 'utf8'));
  const feeds = {};
  for (const input of spec.inputs) {
    const bytes = fs.readFileSync(input.file);
    const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    feeds[input.name] = new ort.Tensor(input.type, new kArrays[input.type](buffer), input.dims);
  }
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'all',
  });
  const results = await session.run(feeds);
  fs.mkdirSync(outDir, {recursive: true});
  const outputs = session.outputNames.map((name, i) => {
    const y = results[name];
    fs.writeFileSync(path.join(outDir, `output_${i}.bin`),
                     Buffer.from(y.data.buffer, y.data.byteOffset, y.data.byteLength));
    return {name, type: y.type, dims: y.dims};
  });
  fs.writeFileSync(path.join(outDir, 'outputs.json'), JSON.stringify(outputs));
}
main().catch((e) => { console.error(e); process.exit(1); });
