// The preload exposes `window.titular`: one narrow function per channel of the IPC contract, each
// forwarding its input to ipcMain and returning `{ ok, value | error }`. ipcRenderer itself is never
// exposed, and no other channel can be reached from the page.
import { contextBridge, ipcRenderer } from 'electron';
import { CHANNEL_NAMES, ipcChannel } from '../shared/ipc/channels';
// Types only (erased from the bundle: the sandboxed preload carries no zod).
import type { PreloadApi } from '../shared/ipc/contract';

const api = Object.fromEntries(
  CHANNEL_NAMES.map((name) => [name, (input: unknown) => ipcRenderer.invoke(ipcChannel(name), input)]),
) as PreloadApi;

contextBridge.exposeInMainWorld('titular', Object.freeze(api));
