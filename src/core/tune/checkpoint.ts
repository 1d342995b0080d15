/**
 * The search's checkpoint: every finished trial, written after each one (to a temporary file,
 * then renamed, so an interrupt never leaves half a file), and read back on the next run so an
 * interrupted search resumes where it stopped (trials that failed are measured again). Trials only count when the fingerprint (model,
 * config, measurement settings) is the one they were measured under.
 */
import fs from 'node:fs';
import path from 'node:path';
import { GebeError } from '../../errors.js';
import type { Trial } from './trial.js';

interface CheckpointFile {
  gebeTuneCheckpoint: 1;
  fingerprint: string;
  trials: Trial[];
}

/** More trials than any search here makes: a bigger file is not a checkpoint gebe wrote. */
const MAX_TRIALS = 10_000;

export class Checkpoint {
  private constructor(readonly file: string, private readonly fingerprint: string, readonly trials: Map<string, Trial>, readonly resumed: number) {}

  /** Opens the checkpoint; trials of another fingerprint (or --fresh) are dropped. */
  static open(file: string, fingerprint: string, fresh: boolean): Checkpoint {
    const trials = new Map<string, Trial>();
    if (!fresh && fs.existsSync(file)) {
      let parsed: CheckpointFile;
      try {
        parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as CheckpointFile;
      } catch (err) {
        throw new GebeError(`the tune checkpoint ${file} is not readable JSON (${(err as Error).message})`, { hint: 'delete it, or pass --fresh to start over' });
      }
      if (parsed?.gebeTuneCheckpoint !== 1 || !Array.isArray(parsed.trials) || parsed.trials.length > MAX_TRIALS) {
        throw new GebeError(`${file} is not a gebe tune checkpoint`, { hint: 'choose another --checkpoint file, or pass --fresh to overwrite it' });
      }
      if (parsed.fingerprint === fingerprint) for (const t of parsed.trials) trials.set(t.key, t);
    }
    return new Checkpoint(file, fingerprint, trials, [...trials.values()].filter((t) => t.error === undefined).length);
  }

  record(trial: Trial): void {
    this.trials.set(trial.key, trial);
    const data: CheckpointFile = { gebeTuneCheckpoint: 1, fingerprint: this.fingerprint, trials: [...this.trials.values()] };
    const tmp = `${this.file}.${process.pid}.tmp`;
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true });
      fs.writeFileSync(tmp, `${JSON.stringify(data, null, 1)}\n`);
      fs.renameSync(tmp, this.file);
    } catch (err) {
      throw new GebeError(`cannot write the tune checkpoint ${this.file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { hint: 'choose a writable --checkpoint path' });
    }
  }
}
