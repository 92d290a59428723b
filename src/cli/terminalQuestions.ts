import { createInterface } from 'node:readline/promises';

/**
 * The terminal's questions, one at a time. Call approvals (a drift or a command) and plan
 * approvals (a widening replan) are asked by different parts of the CLI and can be pending at the
 * same time; two readline interfaces open on one input would both take the same line, so a "y"
 * typed for one question would also answer another the person had not read.
 */
export interface TerminalQuestions {
  /**
   * Shows `prompt()` once every earlier question is answered and resolves with the trimmed reply,
   * or undefined without asking when `stillWanted()` says the question was answered meanwhile.
   */
  ask(prompt: () => string, stillWanted?: () => boolean): Promise<string | undefined>;
}

export function terminalQuestions(io: { readonly input: NodeJS.ReadableStream; readonly output: NodeJS.WritableStream }): TerminalQuestions {
  let queue: Promise<unknown> = Promise.resolve();
  return {
    ask(prompt, stillWanted = () => true) {
      const asked = queue.then(async () => {
        if (!stillWanted()) return undefined;
        const rl = createInterface({ input: io.input, output: io.output, terminal: true });
        try {
          return (await rl.question(prompt())).trim();
        } finally {
          rl.close();
        }
      });
      queue = asked.catch(() => undefined);
      return asked;
    },
  };
}
