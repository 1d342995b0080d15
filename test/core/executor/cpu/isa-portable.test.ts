/** The cpu engine's suites again with the portable kernels forced (isa-suites.ts lists them). */
import { rerunSuitesWithIsa } from './isa-suites.js';

await rerunSuitesWithIsa('portable');
