/** The committed binary fixtures are exactly what fixtures/generate.ts builds. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatedFixtures } from '../../../fixtures/generate.js';

const fixturesDir = path.resolve(import.meta.dirname, '..', '..', '..', 'fixtures');

describe('generated fixtures', () => {
  for (const [rel, bytes] of Object.entries(generatedFixtures())) {
    it(`fixtures/${rel} is up to date (npx tsx fixtures/generate.ts)`, () => {
      expect(Buffer.compare(fs.readFileSync(path.join(fixturesDir, rel)), Buffer.from(bytes))).toBe(0);
    });
  }
});
