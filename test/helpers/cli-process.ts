/** The gebe program as its own process, from the TypeScript sources (what bin/gebe.js runs from dist/). */
import { main } from '../../src/cli.js';

process.exitCode = await main(process.argv);
