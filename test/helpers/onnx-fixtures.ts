/**
 * The small ONNX fixtures committed under fixtures/models/, and how they are generated. A test
 * checks the committed bytes still match the generator, so a fixture never drifts silently.
 * Regenerate with: GEBE_WRITE_FIXTURES=1 npx vitest run test/core/executor/cpu/fixtures.test.ts
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mnistCnn } from './onnx-models.js';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const fixtureModelsDir = path.join(repoRoot, 'fixtures', 'models');

export const committedFixtures: Record<string, () => Uint8Array> = {
  /** PyTorch-style MNIST CNN (input [batch,1,28,28] → probabilities [batch,10]), reduced widths. */
  'mnist-cnn.onnx': () => mnistCnn({ conv1: 4, conv2: 8, hidden: 32 }),
};

export function fixtureModelPath(name: string): string {
  return path.join(fixtureModelsDir, name);
}
