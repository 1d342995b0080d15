/**
 * Values that used to end the server, against a real server on port 0: an INT32 Div of the
 * type's minimum by -1 (x86's idiv raises SIGFPE on it) is answered with the wrapped quotient, as
 * numpy and ONNX Runtime give, and the server goes on serving. The kernels' other edge values are
 * covered in test/core/executor/cpu/hostile-values.test.ts and under ASan in the engine driver.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OnnxGraphBuilder } from '../../../helpers/onnx-builder.js';
import { mnistRepository, startRealServer, type RealServer } from './helpers.js';

let s: RealServer;

beforeAll(async () => {
  const div = new OnnxGraphBuilder().input('a', 'INT32', [3]).input('b', 'INT32', [3]).output('q', 'INT32', [3])
    .node('Div', ['a', 'b'], ['q']).encode();
  s = await startRealServer(mnistRepository({
    div: {
      config: 'name: "div"\nbackend: "ge"\ninput [ { name: "a", data_type: TYPE_INT32, dims: [ 3 ] }, { name: "b", data_type: TYPE_INT32, dims: [ 3 ] } ]\n' +
        'output [ { name: "q", data_type: TYPE_INT32, dims: [ 3 ] } ]\n',
      model: div,
    },
  }));
});
afterAll(async () => {
  await s?.stop();
});

it('answers INT32 minimum / -1 and division by zero, and keeps serving', async () => {
  const body = JSON.stringify({ inputs: [
    { name: 'a', datatype: 'INT32', shape: [3], data: [-2147483648, 7, -9] },
    { name: 'b', datatype: 'INT32', shape: [3], data: [-1, 0, 2] },
  ] });
  for (let i = 0; i < 2; ++i) {
    const res = await fetch(`${s.http}/v2/models/div/infer`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { outputs: Array<{ data: number[] }> };
    expect(answer.outputs[0]!.data).toEqual([-2147483648, 0, -4]);
  }
  expect((await fetch(`${s.http}/v2/health/ready`)).status).toBe(200);
});
