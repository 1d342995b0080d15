/** The cpu engine's suites again with the avx512 kernels forced (isa-suites.ts lists them). */
import { rerunSuitesWithIsa } from './isa-suites.js';

await rerunSuitesWithIsa('avx512');
