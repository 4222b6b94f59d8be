// ipcMain side of the contract: one handler per channel. Each call is accepted only from the app's
// own top frame (its pages under app://titular/), its input is parsed by the contract (in dispatch), and
// errors cross as `{ ok: false, error }` without stack traces. Until the startup gate is open only
// the `startup.*` channels answer; everything else says the app is locked.
import { ipcMain, type IpcMainInvokeEvent } from 'electron';
import type { Titular } from '../core/titular';
import { asIpcResult } from '../core/ipc/ipc-result';
import { dispatch, type IpcSession } from '../core/ipc/handlers';
import { dispatchStartup, isStartupChannel } from '../core/ipc/startup-handlers';
import type { StartupGate } from '../core/startup/startup-gate';
import { CHANNEL_NAMES, ipcChannel, type ChannelName } from '../../shared/ipc/channels';
import type { IpcResult } from '../../shared/ipc/contract';
import { trustedSender } from './trusted-sender';
import { maskKeys } from '../core/keys/secrets';

/**
 * Calls the screens make on their own: a bulk job's progress (every second or so while it runs) and
 * the vault's state (every few seconds while a key is on screen, to hide it once the vault locks).
 * Not a person at the computer, so they do not hold off the vault's auto-lock.
 */
const POLLING_CHANNELS: ReadonlySet<ChannelName> = new Set<ChannelName>(['bulk.get', 'bulk.list', 'vault.status']);

/** `trustedPrefixes`: URLs of the folders of the app's own pages (`app://titular/`; the dev server in development). */
export function registerIpc(
  gate: StartupGate,
  session: (titular: Titular) => IpcSession,
  trustedPrefixes: readonly string[],
  onActivity: () => void,
): void {
  const trustedFrame = trustedSender(trustedPrefixes);
  const trusted = (event: IpcMainInvokeEvent) => {
    const frame = event.senderFrame;
    return frame !== null && trustedFrame(frame.url, frame.parent === null);
  };
  for (const name of CHANNEL_NAMES) {
    ipcMain.handle(ipcChannel(name), async (event, input: unknown): Promise<IpcResult<unknown>> => {
      if (!trusted(event)) return { ok: false, error: { code: 'FORBIDDEN', message: 'Untrusted sender', status: 403 } };
      try {
        if (!POLLING_CHANNELS.has(name)) onActivity();
        const titular = gate.titular;
        if (titular) return await asIpcResult(() => dispatch(titular, session(titular), name, input), titular.dataDir);
        if (isStartupChannel(name)) return await asIpcResult(() => dispatchStartup(gate, name, input));
        return { ok: false, error: { code: 'UNAUTHORIZED', message: 'Titular is locked: unlock it first', status: 401 } };
      } catch (error) {
        // Only the main process's log gets the reason (masked like every log line); the renderer a GE500.
        console.error(`Titular IPC ${name}: ${maskKeys(error instanceof Error ? `${error.name}: ${error.message}` : String(error))}`);
        return { ok: false, error: { code: 'GE500', message: 'Internal error', status: 500 } };
      }
    });
  }
}
