// Times bench(mode) in Node's wasm: the first call (baseline code) and the
// median of calls 21 on (after V8 has moved the hot functions to its
// optimising tier). Usage: node run.mjs FILE.wasm [mode] [calls]
import fs from 'node:fs';

const [file, mode = '1', calls = '60'] = process.argv.slice(2);
const { instance } = await WebAssembly.instantiate(fs.readFileSync(file), {
  env: { now: () => performance.now() },
});
const times = [];
for (let i = 0; i < Number(calls); i++) times.push(instance.exports.bench(Number(mode)));
const after = times.slice(20).sort((a, b) => a - b);
console.log(`mode ${mode}: first run ${times[0].toFixed(2)} ms, median of runs 21-${calls} ${after[after.length >> 1].toFixed(2)} ms, least ${after[0].toFixed(2)} ms`);
