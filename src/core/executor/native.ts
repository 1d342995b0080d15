/**
 * Loads the native addon. This module is the only importer of the addon in gebe; everything
 * else goes through the typed executor facade. A missing or broken build becomes one GebeError
 * that says what to do.
 */
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GebeError } from '../../errors.js';

const require = createRequire(import.meta.url);
const packageRoot = fileURLToPath(new URL('../../../', import.meta.url));
const candidates = ['build/Release/gebe_native.node', 'build/Debug/gebe_native.node'];

/** The raw addon exports. Typed narrowly by each facade module that uses a part of it. */
export type NativeAddon = Record<string, unknown> & { modules: string[]; abiVersion: number };

let cached: NativeAddon | undefined;

export function loadNativeAddon(): NativeAddon {
  if (cached) return cached;
  const override = process.env.GEBE_NATIVE_ADDON;
  const paths = override ? [override] : candidates.map((p) => packageRoot + p);
  const found = paths.find((p) => existsSync(p));
  if (!found) {
    throw new GebeError(`the native executor is not built (looked for ${paths.join(', ')})`, {
      hint: 'run `npm rebuild` (or `npm run build:native`) in the gebe checkout; it needs python3, make and a C++17 compiler',
    });
  }
  try {
    cached = require(found) as NativeAddon;
  } catch (err) {
    throw new GebeError(`the native executor at ${found} failed to load: ${(err as Error).message}`, {
      hint: 'rebuild it for this Node.js with `npm rebuild`',
      cause: err,
    });
  }
  return cached;
}

/**
 * One module of the addon (its key in the exports: `executor`, `http`, `trace`, ...), or the one
 * error that says the build lacks it. `what` names it for that error; `alternative` adds a way
 * around it to the hint.
 */
export function nativeModule<T>(key: string, what: string, alternative?: string): T {
  const module = loadNativeAddon()[key] as T | undefined;
  if (module === undefined) {
    throw new GebeError(`the native addon was built without ${what}`, {
      hint: `rebuild it from this checkout with \`npm run build:native\`${alternative ? `, or ${alternative}` : ''}`,
    });
  }
  return module;
}
