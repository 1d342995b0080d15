/**
 * Which Python runs a model's stub: `<env>/bin/python3` when the config's EXECUTION_ENV_PATH
 * parameter names an environment directory (a venv or an unpacked conda env; Triton's
 * `$$TRITON_MODEL_DIRECTORY` stands for the model directory), otherwise `python3` on PATH. A packed
 * environment (.tar.gz) is refused: gebe does not unpack archives.
 */
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { GebeError } from '../../errors.js';
import type { ModelConfig } from '../config/model-config.js';

export const EXECUTION_ENV_PATH = 'EXECUTION_ENV_PATH';
const INSTALL_HINT = 'install Python 3 with numpy (Debian: `apt-get install python3 python3-numpy`; or `python3 -m venv env && env/bin/pip install numpy`)';

export interface Interpreter {
  /** The executable to spawn. */
  command: string;
  /** Where it came from, for messages ("python3 on PATH", "EXECUTION_ENV_PATH /x"). */
  origin: string;
}

export function findInterpreter(modelDir: string, config: ModelConfig, envPath: string | undefined = process.env.PATH): Interpreter {
  const model = config.name ?? path.basename(modelDir);
  const raw = config.parameters?.[EXECUTION_ENV_PATH]?.string_value;
  if (raw !== undefined && raw !== '') {
    const env = path.resolve(modelDir, raw.replaceAll('$$TRITON_MODEL_DIRECTORY', modelDir));
    if (/\.(tar\.gz|tgz|tar)$/i.test(env)) {
      throw new GebeError(`model '${model}': parameter ${EXECUTION_ENV_PATH} names the packed environment ${env}; gebe does not unpack environments`, {
        hint: `unpack it into a directory (mkdir env && tar -xzf ${path.basename(env)} -C env) and set ${EXECUTION_ENV_PATH} to that directory`,
      });
    }
    if (!isDirectory(env)) {
      throw new GebeError(`model '${model}': parameter ${EXECUTION_ENV_PATH} names ${env}, which is not a directory`, {
        hint: `point ${EXECUTION_ENV_PATH} at a virtual environment directory (one with bin/python3), e.g. "$$TRITON_MODEL_DIRECTORY/env"`,
      });
    }
    const python = path.join(env, 'bin', 'python3');
    if (!isExecutable(python)) {
      throw new GebeError(`model '${model}': ${EXECUTION_ENV_PATH} ${env} has no executable bin/python3`, {
        hint: `create the environment with \`python3 -m venv ${env} && ${env}/bin/pip install numpy\``,
      });
    }
    return { command: python, origin: `${EXECUTION_ENV_PATH} ${env}` };
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

function isExecutable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
}
