/**
 * Finds the `atc` executable on PATH. When it is missing, says which of the variables CANN's
 * set_env.sh sets is missing, and which set_env.sh to source.
 */
import fs from 'node:fs';
import path from 'node:path';
import { GebeError } from '../../errors.js';

/** Default CANN install locations, newest layout first. */
const SET_ENV_CANDIDATES = ['/usr/local/Ascend/cann/set_env.sh', '/usr/local/Ascend/ascend-toolkit/set_env.sh'];

export function findOnPath(command: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, command);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

export function findAtc(env: NodeJS.ProcessEnv, candidates = SET_ENV_CANDIDATES): string {
  const atc = findOnPath('atc', env);
  if (atc) return atc;
  const installed = candidates.find((f) => fs.existsSync(f));
  const source = `source ${installed ?? SET_ENV_CANDIDATES[0]}${installed ? '' : ' (or your CANN install\'s set_env.sh)'}`;
  const home = env.ASCEND_HOME_PATH ?? env.ASCEND_TOOLKIT_HOME;
  if (!home) {
    throw new GebeError('atc was not found on PATH, and ASCEND_HOME_PATH is not set: CANN\'s environment is not loaded in this shell', {
      hint: `${source}, then run gebe convert again (or use --dry-run to print the command)`,
    });
  }
  const bin = path.join(home, 'bin');
  throw new GebeError(`atc was not found on PATH, although ASCEND_HOME_PATH is ${home}: PATH lacks ${bin}`, {
    hint: `${source} again in this shell, or add ${bin} to PATH`,
  });
}
