// ipcMain side of the contract: one handler per channel. Each call is accepted only from the app's
// own top frame (file:// page of this app), its input is parsed by the contract (in dispatch), and
// errors cross as `{ ok: false, error }` without stack traces. Until the startup gate is open only
// the `startup.*` channels answer; everything else says the app is locked.
import { ipcMain, type IpcMainInvokeEvent } from 'electron';
import type { Titular } from '../core/titular';
import { asIpcResult } from '../core/ipc/ipc-result';
import { dispatch, type IpcSession } from '../core/ipc/handlers';
import { dispatchStartup, isStartupChannel } from '../core/ipc/startup-handlers';
import type { StartupGate } from '../core/startup/startup-gate';
import { CHANNEL_NAMES, ipcChannel } from '../../shared/ipc/channels';
import type { IpcResult } from '../../shared/ipc/contract';
import { trustedSender } from './trusted-sender';

/** `trustedPrefixes`: URLs of the folders of the app's own pages (its file:// folder; the dev server in development). */
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
      onActivity();
      try {
        const titular = gate.titular;
        if (titular) return await asIpcResult(() => dispatch(titular, session(titular), name, input));
        if (isStartupChannel(name)) return await asIpcResult(() => dispatchStartup(gate, name, input));
        return { ok: false, error: { code: 'UNAUTHORIZED', message: 'Titular is locked: unlock it first', status: 401 } };
      } catch {
        return { ok: false, error: { code: 'GE500', message: 'Internal error', status: 500 } };
      }
    });
  }
}
