// usage: convab.mts threads addonA addonB : per shape, p50 of addon A, addon B and ORT in alternating blocks
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as ort from 'onnxruntime-node';
import { OnnxGraphBuilder, randomValues } from '/work/main/test/helpers/onnx-builder.js';
import { timeBlocks } from '/work/main/scripts/lib/alternate-blocks.js';
const require = createRequire(import.meta.url);
const [threads, addonA, addonB] = [Number(process.argv[2]), process.argv[3]!, process.argv[4]!];
const A = require(addonA), B = require(addonB);
const shapes = (process.env.SHAPES ?? '896 128 14 1,480 128 28 1,1024 512 14 1,1024 256 14 1,2048 512 7 1,512 2048 7 1,256 1024 14 1,128 32 28 3,256 256 14 3,512 512 7 3').split(',').map((s) => s.split(' ').map(Number));
for (const [cin, cout, hw, k] of shapes) {
  const dims = [1, cin, hw, hw];
  const g = new OnnxGraphBuilder('conv', 17).input('x', 'FLOAT', dims);
  // COPIES convolutions of the same shape with their own weights, side by side: with enough of
  // them the weights do not stay in cache from one run to the next, as in a real model.
  const copies = Number(process.env.COPIES ?? 1);
  for (let c = 0; c < copies; c++) {
    g.initializer(`w${c}`, 'FLOAT', [cout, cin, k, k], randomValues(cout * cin * k * k, 3 + c, 0.1));
    g.node('Conv', ['x', `w${c}`], [`y${c}`], { kernel_shape: [k, k], pads: [(k - 1) / 2, (k - 1) / 2, (k - 1) / 2, (k - 1) / 2] }, `conv${c}`);
  }
  if (copies === 1) g.node('Identity', ['y0'], ['y']); else g.node('Concat', Array.from({ length: copies }, (_, c) => `y${c}`), ['y'], { axis: 1 });
  g.output('y', 'FLOAT', undefined);
  const file = `/tmp/gap/cab_${cin}_${cout}_${hw}_${k}.onnx`;
  writeFileSync(file, g.encode());
  const data = randomValues(dims.reduce((a, b) => a * b), 5, 2);
  const sa = new A.CpuSession(file, { intraOpThreads: threads }), sb = new B.CpuSession(file, { intraOpThreads: threads });
  const o = await ort.InferenceSession.create(file, { intraOpNumThreads: threads, interOpNumThreads: 1 });
  const input = [{ name: 'x', datatype: 'FP32', dims, data }];
  const feeds = { x: new ort.Tensor('float32', data, dims) };
  const [ta, tb, to] = await timeBlocks([() => sa.runSync(input), () => sb.runSync(input), () => o.run(feeds)], 10, 3000, threads > 1);
  console.log(`${cin}->${cout} k${k} @${hw} T${threads}: A ${(ta * 1000).toFixed(0)} B ${(tb * 1000).toFixed(0)} ORT ${(to * 1000).toFixed(0)} us (${process.env.COPIES ?? 1} convs)  A/ORT ${(ta / to).toFixed(2)} B/ORT ${(tb / to).toFixed(2)}`);
  sa.close(); sb.close(); await o.release();
}
