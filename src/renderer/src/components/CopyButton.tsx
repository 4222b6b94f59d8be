import { useState } from 'react';
import { useI18n } from '../i18n';
import { useToast } from './Toast';
import { IconCheck, IconCopy } from './Icons';
import { clearSecretLater, SECRET_CLIPBOARD_MS } from '../lib/secret-clipboard';

/**
 * The async clipboard API first; when it is missing or refuses (a desktop shell that denies the
 * permission, a page without focus), the older copy command, which needs no permission.
 */
async function writeClipboard(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) {
    try {
      await navigator.clipboard.writeText(text);
      return;
    } catch {
      // refused: try the copy command below
    }
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  const focused = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  document.body.appendChild(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  focused?.focus();
  if (!ok) throw new Error('copy failed');
}

/**
 * A small button that copies `value`; `label` is its accessible text (also shown when `showLabel`).
 * A `secret` (an API key; not a CBU, an alias or a CUIT) is cleared from the clipboard a minute later
 * if it is still there (lib/secret-clipboard.ts), and the notice says so.
 */
export function CopyButton({
  value,
  label,
  showLabel = false,
  testId,
  variant = 'ghost',
  secret = false,
}: {
  value: string;
  label: string;
  showLabel?: boolean;
  testId?: string;
  variant?: 'ghost' | 'secondary';
  secret?: boolean;
}) {
  const { m } = useI18n();
  const toast = useToast();
  const [done, setDone] = useState(false);
  const onClick = async () => {
    try {
      await writeClipboard(value);
      // A secret's clear is set up first (its digest, and the host's answer: a few ms), so that the
      // button and the notice say it will be cleared only once it will.
      if (secret) await clearSecretLater(value, () => toast((t) => t.m.common.secretNotCleared, 'error'));
      setDone(true);
      if (secret) {
        toast((t) => t.plural(SECRET_CLIPBOARD_MS / 60_000, t.m.common.secretCopied));
      } else {
        toast((t) => t.m.common.copied);
      }
      window.setTimeout(() => setDone(false), 1500);
    } catch {
      toast((t) => t.m.common.copyFailed, 'error');
    }
  };
  return (
    <button
      type="button"
      className={`btn btn-${variant} btn-sm ${showLabel ? '' : 'btn-icon'}`}
      onClick={() => void onClick()}
      aria-label={label}
      title={label}
      data-testid={testId}
    >
      {done ? <IconCheck size={15} /> : <IconCopy size={15} />}
      {showLabel ? <span>{done ? m.common.copied : label}</span> : <span className="sr-only">{label}</span>}
    </button>
  );
}
