// How a command says that Ctrl-C (SIGINT) or SIGTERM stopped it, and with which exit status: the
// one a shell reports for a process killed by that signal (130, 143), whether the command stopped
// cleanly on its own or a second signal ended it at once (cli.ts). `bulk run` and `bulk resume`
// keep their own status (4: stopped before the end, resumable) and summary on stdout.
import { constants } from 'node:os';
import type { Output } from './output';

/** 128 + the signal's number: 130 for SIGINT, 143 for SIGTERM. */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? constants.signals.SIGINT);
}

/** The exit status of a command stopped by `signal`, which cli.ts aborts with the signal's name. */
export function interruptedExitCode(signal: AbortSignal): number {
  return signalExitCode(typeof signal.reason === 'string' ? (signal.reason as NodeJS.Signals) : 'SIGINT');
}

/**
 * Tells on stderr what an interrupted command kept or did not (stdout may be the export itself), in
 * the words `bulk run` uses: "Stopped before the end: nothing was imported."
 */
export function sayStopped(out: Output, what: string): void {
  out.warn(`Stopped before the end: ${what}.`);
}

/**
 * Lets a signal that arrived during synchronous work (reading a file, one transaction) reach its
 * handler before the command goes on: it waits in the event loop until then. One setImmediate is not
 * enough (measured: the handler runs in a later turn); a timer and an immediate after it are.
 */
export async function letSignalsIn(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 0));
  await new Promise((resolve) => setImmediate(resolve));
}
