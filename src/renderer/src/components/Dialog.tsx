// Modal confirmation dialog and side drawer. Escape closes; focus moves into the dialog on open.
import { useEffect, useRef, type ReactNode } from 'react';
import { useI18n } from '../i18n';
import { IconX } from './Icons';
import { Spinner } from './ui';

function useEscape(onEscape: () => void) {
  useEffect(() => {
    const handler = (event: KeyboardEvent) => {
      if (event.key === 'Escape') onEscape();
    };
    window.addEventListener('keydown', handler);
    return () => window.removeEventListener('keydown', handler);
  }, [onEscape]);
}

export function ConfirmDialog({
  title,
  children,
  okLabel,
  destructive = false,
  busy = false,
  okDisabled = false,
  onConfirm,
  onCancel,
}: {
  title: string;
  children: ReactNode;
  okLabel: string;
  destructive?: boolean;
  busy?: boolean;
  okDisabled?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const { m } = useI18n();
  const panel = useRef<HTMLFormElement>(null);
  useEscape(onCancel);
  useEffect(() => {
    const first = panel.current?.querySelector<HTMLElement>('input, [data-autofocus]');
    first?.focus();
  }, []);
  return (
    <div className="overlay" onMouseDown={(e) => e.target === e.currentTarget && onCancel()}>
      <form
        ref={panel}
        className="dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="dialog-title"
        onSubmit={(e) => {
          e.preventDefault();
          if (!busy && !okDisabled) onConfirm();
        }}
      >
        <h2 id="dialog-title" className="dialog-title">
          {title}
        </h2>
        <div className="dialog-body">{children}</div>
        <div className="dialog-actions">
          <button type="button" className="btn btn-secondary" onClick={onCancel} data-testid="confirm-cancel">
            {m.common.cancel}
          </button>
          <button
            type="submit"
            className={`btn ${destructive ? 'btn-danger' : 'btn-primary'}`}
            disabled={busy || okDisabled}
            data-testid="confirm-ok"
            data-autofocus
          >
            {busy ? <Spinner /> : null}
            <span>{okLabel}</span>
          </button>
        </div>
      </form>
    </div>
  );
}

export function Drawer({ title, children, onClose, testId }: { title: string; children: ReactNode; onClose: () => void; testId?: string }) {
  const { m } = useI18n();
  const closeRef = useRef<HTMLButtonElement>(null);
  useEscape(onClose);
  useEffect(() => closeRef.current?.focus(), []);
  return (
    <div className="overlay overlay-drawer" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <aside className="drawer" role="dialog" aria-modal="true" aria-labelledby="drawer-title" data-testid={testId}>
        <div className="drawer-header">
          <h2 id="drawer-title" className="drawer-title">
            {title}
          </h2>
          <button ref={closeRef} type="button" className="btn btn-ghost btn-sm" onClick={onClose} data-testid="drawer-close">
            <IconX size={16} />
            <span>{m.common.close}</span>
          </button>
        </div>
        <div className="drawer-body">{children}</div>
      </aside>
    </div>
  );
}
