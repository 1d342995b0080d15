/**
 * The questions `gebe init` may ask, behind an interface so tests answer them without a terminal.
 * The real prompter uses @inquirer/prompts and is only created when stdin and stdout are terminals.
 */
import { input, number, select } from '@inquirer/prompts';
import { GebeError } from '../../errors.js';

export interface Choice<T extends string> {
  name: string;
  value: T;
  description?: string;
}

export interface Prompter {
  select<T extends string>(question: { message: string; choices: Array<Choice<T>>; default?: T }): Promise<T>;
  number(question: { message: string; default: number; min: number; max?: number }): Promise<number>;
  text(question: { message: string; default: string; validate: (value: string) => string | true }): Promise<string>;
}

export function inquirerPrompter(): Prompter {
  return {
    select: (q) => cancellable(select(q)),
    number: async (q) => (await cancellable(number({ ...q, required: true, step: 1 }))) ?? q.default,
    text: (q) => cancellable(input(q)),
  };
}

/** Ctrl-C in a prompt rejects with ExitPromptError: a user's choice, not a crash. */
async function cancellable<T>(answer: Promise<T>): Promise<T> {
  try {
    return await answer;
  } catch (err) {
    if ((err as Error).name === 'ExitPromptError') throw new GebeError('gebe init was cancelled; nothing was written', { cause: err });
    throw err;
  }
}
