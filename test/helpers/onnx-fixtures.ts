/**
 * The small ONNX fixtures committed under fixtures/models/, and how they are generated. A test
 * checks the committed bytes still match the generator, so a fixture never drifts silently.
 * Regenerate with: GEBE_WRITE_FIXTURES=1 npx vitest run test/core/executor/cpu/fixtures.test.ts
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { OnnxGraphBuilder } from './onnx-builder.js';
import { mnistCnn } from './onnx-models.js';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const fixtureModelsDir = path.join(repoRoot, 'fixtures', 'models');

export const committedFixtures: Record<string, () => Uint8Array> = {
  /** PyTorch-style MNIST CNN (input [batch,1,28,28] → probabilities [batch,10]), reduced widths. */
  'mnist-cnn.onnx': () => mnistCnn({ conv1: 4, conv2: 8, hidden: 32 }),
  /** A → B → A: must fail to load naming the nodes on the cycle. */
  'bad/cyclic.onnx': () =>
    new OnnxGraphBuilder('cyclic', 13)
      .input('x', 'FLOAT', [2])
      .node('Add', ['x', 'b'], ['a'], {}, 'add_a')
      .node('Relu', ['a'], ['b'], {}, 'relu_b')
      .output('b', 'FLOAT', [2])
      .encode(),
  /** Dims that cannot broadcast ([2,3] + [4]): fails at compile naming the node. */
  'bad/shape-mismatch.onnx': () =>
    new OnnxGraphBuilder('mismatch', 13)
      .input('x', 'FLOAT', [2, 3])
      .initializer('y', 'FLOAT', [4], [1, 2, 3, 4])
      .node('Add', ['x', 'y'], ['z'], {}, 'bad_add')
      .output('z', 'FLOAT', [2, 3])
      .encode(),
  /** An initializer declared as 64Ki × 64Ki floats (16 GiB): refused by the memory cap before allocation. */
  'bad/huge-initializer.onnx': () =>
    new OnnxGraphBuilder('huge', 13)
      .input('x', 'FLOAT', [1])
      .initializer('huge_weight', 'FLOAT', [65536, 65536], [])
      .node('Add', ['x', 'huge_weight'], ['y'], {}, 'use_huge')
      .output('y', 'FLOAT', [65536, 65536])
      .encode(),
  /** A runtime tensor above the cap: ConstantOfShape driven by the input's size. */
  'bad/huge-intermediate.onnx': () =>
    new OnnxGraphBuilder('huge_intermediate', 13)
      .input('shape', 'INT64', [2])
      .node('ConstantOfShape', ['shape'], ['big'], {}, 'make_big')
      .output('big', 'FLOAT', [null, null])
      .encode(),
  /** Operators outside the engine's set, in two domains: one load error must list them all. */
  'bad/unsupported-ops.onnx': () =>
    new OnnxGraphBuilder('unsupported', 13)
      .input('x', 'FLOAT', [1, 4])
      .node('Relu', ['x'], ['r'], {}, 'relu')
      .node('ImageDecoder', ['r'], ['h'], {}, 'decode_1')
      .node('ImageDecoder', ['h'], ['h2'], {}, 'decode_2')
      .node('StringNormalizer', ['h2'], ['d'], {}, 'normalize')
      .output('d', 'FLOAT', [1])
      .encode(),
  /** A node input no node, graph input or initializer produces. */
  'bad/dangling-input.onnx': () =>
    new OnnxGraphBuilder('dangling', 13)
      .input('x', 'FLOAT', [2])
      .node('Add', ['x', 'nowhere'], ['y'], {}, 'add_nowhere')
      .output('y', 'FLOAT', [2])
      .encode(),
};

export function fixtureModelPath(name: string): string {
  // Fixture names use '/' (bad/cyclic.onnx); path.join normalises them for the platform.
  return path.join(fixtureModelsDir, name);
}
