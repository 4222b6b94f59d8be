// The preload exposes one narrow function per IPC channel under `window.titular` (the desktop
// issue adds the channels). It never exposes ipcRenderer itself.
import { contextBridge } from 'electron';

contextBridge.exposeInMainWorld('titular', Object.freeze({ version: '0.1.0' }));
