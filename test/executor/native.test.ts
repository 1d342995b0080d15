import { describe, expect, it } from 'vitest';
import { loadNativeAddon } from '../../src/core/executor/native.js';

describe('native addon loader', () => {
  it('loads the addon built by npm install', () => {
    const addon = loadNativeAddon();
    expect(addon.abiVersion).toBe(1);
    expect(Array.isArray(addon.modules)).toBe(true);
  });
});
