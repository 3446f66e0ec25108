// `presence chat [text]`: one turn with the reply streamed as it is written, or, with no
// text, a session that reads one message per line (a prompt when stdin is a terminal).
// A held action prints how to approve it; it is never resolved by resending the message.
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import type { CliContext } from '../context';
import { errorLine } from '../report-error';
import { approveHint } from './confirm';

const fmtArgs = (args: Record<string, unknown>) =>
  Object.entries(args)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');

export function registerChat(program: Command, cli: CliContext) {
  program
    .command('chat')
    .description('talk to the presence: one message, or a session when no text is given')
    .argument('[text...]', 'the message; omit it for a session (one message per line, /exit to leave)')
    .option('--act', 'allow on-chain action this turn (needs wallet:act; still bounded by the policy)')
    .action(async (words: string[], opts: { act?: boolean }, cmd: Command) => {
      const client = cli.client();
      const json = cli.json(cmd);
      const { io } = cli;

      const turn = async (text: string) => {
        const params = { text, allow_act: opts.act };
        if (json) {
          io.stdout(`${JSON.stringify(await client.messages.send(params))}\n`);
          return;
        }
        let held: string | undefined;
        for await (const e of client.messages.send({ ...params, stream: true })) {
          if (e.type === 'token') io.stdout(e.text);
          else if (e.type === 'tool') io.stderr(`· ${e.name} ${fmtArgs(e.args)}\n`);
          else if (e.type === 'needs_confirm') held = e.confirm_id;
          else if (e.type === 'done') {
            io.stdout('\n');
            held ??= e.result.confirm_id;
            if (e.result.tx) io.stdout(`tx ${e.result.tx}\n`);
          }
        }
        if (held) io.stdout(`\nheld for your confirmation (${held})\n${approveHint(cli, held)}\n`);
      };

      if (words.length > 0) return turn(words.join(' '));

      const input = io.stdin ?? process.stdin;
      const tty = Boolean((input as { isTTY?: boolean }).isTTY);
      const rl = createInterface({ input, output: tty ? process.stdout : undefined, prompt: tty ? 'you> ' : undefined, terminal: tty });
      if (tty) rl.prompt();
      try {
        for await (const raw of rl) {
          const line = raw.trim();
          if (line === '/exit' || line === '/quit') break;
          if (line !== '') {
            try {
              await turn(line);
            } catch (e) {
              // At a prompt a failed turn is reported and the session goes on; a script stops.
              if (!tty) throw e;
              io.stderr(`${errorLine(e)}\n`);
            }
          }
          if (tty) rl.prompt();
        }
      } finally {
        rl.close();
      }
    });
}
