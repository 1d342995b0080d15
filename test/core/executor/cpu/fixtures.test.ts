import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { committedFixtures, fixtureModelPath, fixtureModelsDir } from '../../../helpers/onnx-fixtures.js';

describe('committed ONNX fixtures', () => {
  for (const [name, build] of Object.entries(committedFixtures)) {
    it(`${name} matches its generator`, () => {
      const bytes = build();
      if (process.env.GEBE_WRITE_FIXTURES === '1') {
        mkdirSync(fixtureModelsDir, { recursive: true });
        writeFileSync(fixtureModelPath(name), bytes);
      }
      expect(existsSync(fixtureModelPath(name))).toBe(true);
      expect(Buffer.compare(readFileSync(fixtureModelPath(name)), Buffer.from(bytes))).toBe(0);
    });
  }
});
