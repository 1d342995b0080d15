/**
 * Which Python runs a model's stub: `<env>/bin/python3` when the config's EXECUTION_ENV_PATH
 * parameter names an environment (Triton's `$$TRITON_MODEL_DIRECTORY` stands for the model
 * directory): a directory (a venv or an unpacked conda env), or a tar archive of one (conda-pack's
 * .tar.gz), unpacked once into a cache (packed-environment.ts). Otherwise `python3` on PATH. As in
 * Triton, an environment's bin/ leads PATH and its lib/ LD_LIBRARY_PATH in the stub's environment.
 */
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { GebeError } from '../../errors.js';
import type { ModelConfig } from '../config/model-config.js';
import { TARBALL } from '../repository/tarball.js';
import { unpackEnvironment } from './packed-environment.js';

export const EXECUTION_ENV_PATH = 'EXECUTION_ENV_PATH';
const INSTALL_HINT = 'install Python 3 with numpy (Debian: `apt-get install python3 python3-numpy`; or `python3 -m venv env && env/bin/pip install numpy`)';

export interface Interpreter {
  /** The executable to spawn. */
  command: string;
  /** Where it came from, for messages ("python3 on PATH", "EXECUTION_ENV_PATH /x"). */
  origin: string;
  /** Variables the stub's environment gets besides gebe's own (an environment's PATH and LD_LIBRARY_PATH). */
  env?: Record<string, string>;
}

export async function findInterpreter(modelDir: string, config: ModelConfig, envPath: string | undefined = process.env.PATH): Promise<Interpreter> {
  const model = config.name ?? path.basename(modelDir);
  const raw = config.parameters?.[EXECUTION_ENV_PATH]?.string_value;
  if (raw !== undefined && raw !== '') {
    const named = path.resolve(modelDir, raw.replaceAll('$$TRITON_MODEL_DIRECTORY', modelDir));
    let env = named;
    let origin = `${EXECUTION_ENV_PATH} ${named}`;
    if (TARBALL.test(named) && isFile(named)) {
      try {
        env = await unpackEnvironment(named);
      } catch (err) {
        throw new GebeError(`model '${model}': cannot unpack the packed environment ${named} (parameter ${EXECUTION_ENV_PATH}): ${(err as Error).message}`, {
          hint: 'pass a tar archive (optionally gzip, bzip2 or xz compressed) of an environment with bin/python3, as conda-pack makes, or an environment directory',
        });
      }
      origin += ` (unpacked in ${env})`;
    } else if (!isDirectory(named)) {
      throw new GebeError(`model '${model}': parameter ${EXECUTION_ENV_PATH} names ${named}, which is neither a directory nor a tar archive`, {
        hint: `point ${EXECUTION_ENV_PATH} at a virtual environment directory (one with bin/python3), e.g. "$$TRITON_MODEL_DIRECTORY/env", or at a packed one (conda-pack's .tar.gz)`,
      });
    }
    const python = path.join(env, 'bin', 'python3');
    if (!isExecutable(python)) {
      throw new GebeError(`model '${model}': ${origin} has no executable bin/python3`, {
        hint: `create the environment with \`python3 -m venv ${named} && ${named}/bin/pip install numpy\``,
      });
    }
    const libraries = process.env.LD_LIBRARY_PATH;
    return {
      command: python, origin,
      env: { PATH: [path.join(env, 'bin'), envPath].filter(Boolean).join(path.delimiter), LD_LIBRARY_PATH: [path.join(env, 'lib'), libraries].filter(Boolean).join(path.delimiter) },
    };
  }
  for (const dir of (envPath ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const python = path.join(dir, 'python3');
    if (isExecutable(python)) return { command: python, origin: 'python3 on PATH' };
  }
  throw new GebeError(`model '${model}' (backend "python") needs a Python 3 interpreter, and there is no python3 on PATH`, {
    hint: `${INSTALL_HINT}, or set parameter ${EXECUTION_ENV_PATH} to an environment directory`,
  });
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function isExecutable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
}
