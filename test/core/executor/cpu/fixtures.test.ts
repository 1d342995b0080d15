import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { committedFixtures, fixtureModelPath } from '../../../helpers/onnx-fixtures.js';

describe('committed ONNX fixtures', () => {
  for (const [name, build] of Object.entries(committedFixtures)) {
    it(`${name} matches its generator`, () => {
      const bytes = build();
      if (process.env.GEBE_WRITE_FIXTURES === '1') {
        mkdirSync(path.dirname(fixtureModelPath(name)), { recursive: true });
        writeFileSync(fixtureModelPath(name), bytes);
      }
      expect(existsSync(fixtureModelPath(name))).toBe(true);
      expect(Buffer.compare(readFileSync(fixtureModelPath(name)), Buffer.from(bytes))).toBe(0);
    });
  }
});
