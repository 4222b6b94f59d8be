// The vault passphrase asked again before a working key is handed out (revealed, rotated, created) on
// a passphrase vault: the core answers "Enter the vault passphrase to …" first, and the dialog then
// shows this field (core/ipc/handlers.ts askAgain).
import { useId } from 'react';
import { useI18n } from '../../i18n';

export function PassphraseField({ body, value, onChange }: { body: string; value: string; onChange: (value: string) => void }) {
  const { m } = useI18n();
  const id = useId();
  return (
    <div className="field">
      <p className="muted small">{body}</p>
      <label className="field-label" htmlFor={id}>
        {m.keys.passphrase}
      </label>
      <input id={id} type="password" className="input" value={value} onChange={(e) => onChange(e.target.value)} autoComplete="current-password" autoFocus data-testid="key-passphrase" />
    </div>
  );
}
