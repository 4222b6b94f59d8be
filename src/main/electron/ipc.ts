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

/** `trustedPrefixes`: URLs of the folders of the app's own pages (`app://titular/`; the dev server in development). */
export function registerIpc(
  gate: StartupGate,
  session: (titular: Titular) => IpcSession,
  trustedPrefixes: readonly string[],
  /** Every call from the window, for the vault's auto-lock (core/vault/auto-lock.ts tells a poll from a person). */
  onCall: (channel: ChannelName) => void,
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
        const titular = gate.titular;
        if (titular) {
          const result = await asIpcResult(() => dispatch(titular, session(titular), name, input), titular.dataDir);
          // Once the call is done: the idle time counts from then, with a new setting the call may have saved.
          onCall(name);
          return result;
        }
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
