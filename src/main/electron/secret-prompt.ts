// The OS prompt before a working API key is handed out on a keychain vault: revealed, rotated or
// created (core/ipc/handlers.ts askAgain; a passphrase vault asks for its passphrase instead). Touch
// ID where macOS has it, otherwise a native dialog whose safe button is the default. Type-checked and
// reviewed: Electron cannot run on the build machine.
import { BrowserWindow, dialog, systemPreferences } from 'electron';
import type { SecretAsk } from '../core/ipc/handlers';

/** The prompt's words per step (Spanish, as the UI; the OS draws the dialog). */
const SECRET_PROMPTS: Record<SecretAsk['action'], { reason: (label: string) => string; ok: string; message: (label: string) => string }> = {
  reveal: { reason: (l) => `mostrar la clave ${l}`, ok: 'Mostrar la clave', message: (l) => `¿Mostrar la clave ${l}?` },
  rotate: { reason: (l) => `rotar la clave ${l}`, ok: 'Rotar la clave', message: (l) => `¿Rotar la clave ${l} y mostrar la nueva?` },
  create: { reason: (l) => `crear la clave ${l}`, ok: 'Crear la clave', message: (l) => `¿Crear la clave ${l} y mostrarla?` },
};

/**
 * Asks the person at the computer before a working key is handed out — shown, rotated or created —
 * on keychain vaults (a passphrase vault asks for its passphrase instead): Touch ID where macOS has
 * it, otherwise a native confirmation dialog.
 */
export async function confirmSecret(ask: SecretAsk): Promise<boolean> {
  const words = SECRET_PROMPTS[ask.action];
  if (process.platform === 'darwin' && systemPreferences.canPromptTouchID()) {
    try {
      await systemPreferences.promptTouchID(words.reason(ask.label));
      return true;
    } catch {
      return false;
    }
  }
  const [window] = BrowserWindow.getAllWindows();
  const options = {
    type: 'warning' as const,
    buttons: ['Cancelar', words.ok],
    defaultId: 0,
    cancelId: 0,
    title: 'Titular',
    message: words.message(ask.label),
    detail: 'Quien vea la clave puede consultar en nombre de la organización. Confirmá que sos vos.',
  };
  const { response } = window ? await dialog.showMessageBox(window, options) : await dialog.showMessageBox(options);
  return response === 1;
}
