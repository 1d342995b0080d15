/** The cpu engine's suites again with the avx2 kernels forced (isa-suites.ts lists them). */
import { rerunSuitesWithIsa } from './isa-suites.js';

await rerunSuitesWithIsa('avx2');
