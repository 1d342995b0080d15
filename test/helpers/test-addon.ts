/**
 * Makes this test process load the test build of the native addon (build/Release/
 * gebe_native_test.node): the product addon plus the test-only bindings (native/test/bindings),
 * built from the same objects by binding.gyp. Import it before anything that loads the addon.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// A path set by the caller wins (npm run bench:engine runs a compiled copy of the helpers elsewhere).
export const testAddonPath = process.env.GEBE_NATIVE_ADDON ?? fileURLToPath(new URL('../../build/Release/gebe_native_test.node', import.meta.url));
if (!existsSync(testAddonPath)) {
  throw new Error(`the test addon is not built (${testAddonPath}); run \`npm run build:native:test\``);
}
process.env.GEBE_NATIVE_ADDON = testAddonPath;
