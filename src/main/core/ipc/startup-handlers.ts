// The three startup channels while no one is signed in yet: they talk to the StartupGate, not to
// the core (which is not open). The Electron shell and the headless browser mode's gate route
// `startup.*` here; once the gate is ready, handlers.ts answers them for the signed-in session.
import { TitularError, invalidParameter } from '../errors';
import type { SetupInput, StartupGate } from '../startup/startup-gate';
import { ipcContract, type StartupStatusDto } from '../../../shared/ipc/contract';

export const STARTUP_CHANNELS = ['startup.status', 'startup.unlock', 'startup.setup'] as const;
export type StartupChannel = (typeof STARTUP_CHANNELS)[number];

export function isStartupChannel(channel: string): channel is StartupChannel {
  return (STARTUP_CHANNELS as readonly string[]).includes(channel);
}

export function dispatchStartup(gate: StartupGate, channel: StartupChannel, rawInput: unknown): StartupStatusDto {
  const parsed = ipcContract[channel].input.safeParse(rawInput ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalidParameter(`${issue?.path.join('.') || 'input'}: ${issue?.message ?? 'invalid'}`);
  }
  switch (channel) {
    case 'startup.status':
      break;
    case 'startup.unlock': {
      const input = parsed.data as { passphrase: string };
      gate.unlock(input.passphrase);
      break;
    }
    case 'startup.setup': {
      gate.setup(parsed.data as SetupInput);
      break;
    }
    default:
      throw new TitularError(404, 'NOT_FOUND', `Unknown channel ${String(channel)}`);
  }
  // Checked against the contract on the way out too, as every other channel's answer is (dispatch).
  return ipcContract[channel].output.parse(gate.status()) as StartupStatusDto;
}
