// `titular <command>` (`npm run cli -- <command>`, or bin/titular.js): administers a data directory
// without the desktop app: init, users, API keys, credits, the account directory and history
// exports. Run `titular help` for the commands. The work is in ./cli/.
import { runCli } from './cli/run';
import { letSignalsIn, signalExitCode } from './cli/interrupt';

async function main(): Promise<void> {
  // The command reads TITULAR_PASSPHRASE from its own copy of the environment; the process's, which a
  // process it started would inherit and a diagnostic report lists, keeps it no longer (as serve's).
  const env = { ...process.env };
  delete process.env.TITULAR_PASSPHRASE;
  const controller = new AbortController();
  let interrupts = 0;
  let listening = false;
  const onSignal = (signal: NodeJS.Signals) => {
    interrupts++;
    // The first signal lets the running command stop cleanly (and close the database); a second one ends it now.
    if (interrupts > 1) process.exit(signalExitCode(signal));
    // Named, so that the command answers the status of this signal (130 or 143: cli/interrupt.ts).
    controller.abort(signal);
  };
  // A closed pipe (`titular keys list | head -1`) is not an error of the command.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });

  // Only commands that watch the signal catch it (bulk runs, history exports, directory imports,
  // which commit only once they have let it in: cli/interruptible-write.ts). The others are short
  // and synchronous: Ctrl-C keeps its default there, ending the process and rolling back what it wrote.
  const code = await runCli(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    env,
    interruptSignal: () => {
      listening = true;
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      return controller.signal;
    },
  });
  if (listening) {
    // A clean stop ends in synchronous work (a bulk run counts its job, the database is closed: up to
    // a second on a large job). A second Ctrl-C pressed meanwhile is still waiting in the event loop:
    // let it in while its handler listens, so that it ends the process with 130 (143), not with the
    // clean stop's status. One that comes after this finds the default action again: the process is
    // killed by it, which a shell reports as the same 130 (143).
    await letSignalsIn();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  process.exitCode = code;
}

main().catch((error: unknown) => {
  // runCli reports every failure itself; reaching this is a bug.
  process.stderr.write(`titular: unexpected error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
