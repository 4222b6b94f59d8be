// Modal confirmation dialog and side drawer. Escape closes; focus moves into the dialog on open,
// Tab stays inside it while it is open, and focus goes back to what opened it when it closes.
import { useEffect, useRef, type ReactNode, type RefObject } from 'react';
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

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * Focuses `initial` in `panel` on open and keeps Tab and Shift+Tab cycling inside the panel (the
 * page behind an aria-modal dialog is out of reach for a mouse, so it must be for the keyboard too).
 * On close, focus returns to the element that had it before, if it is still on the page.
 */
function useModalFocus(panel: RefObject<HTMLElement | null>, initial: () => HTMLElement | null | undefined) {
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    initial()?.focus();
    const trap = (event: KeyboardEvent) => {
      if (event.key !== 'Tab' || !panel.current) return;
      const items = [...panel.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
      if (items.length === 0) return;
      const first = items[0]!;
      const last = items[items.length - 1]!;
      const active = document.activeElement;
      // Focus can fall out (a button disabled while busy drops it to the body): bring it back in.
      const inside = panel.current.contains(active);
      if (event.shiftKey ? active === first || !inside : active === last || !inside) {
        event.preventDefault();
        (event.shiftKey ? last : first).focus();
      }
    };
    document.addEventListener('keydown', trap);
    return () => {
      document.removeEventListener('keydown', trap);
      if (opener?.isConnected) opener.focus();
    };
    // Once per opening: `initial` is read on open only.
  }, []);
}

export function ConfirmDialog({
  title,
  children,
  okLabel,
  destructive = false,
  busy = false,
  okDisabled = false,
  cancelLabel,
  onConfirm,
  onCancel,
}: {
  title: string;
  children: ReactNode;
  okLabel: string;
  /** The dismiss button's label when "Cancelar" would be ambiguous (cancelling a batch). */
  cancelLabel?: string;
  /** A red confirm button, and focus starts on the safe one: a stray Enter must not do it. */
  destructive?: boolean;
  busy?: boolean;
  okDisabled?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const { m } = useI18n();
  const panel = useRef<HTMLFormElement>(null);
  useEscape(onCancel);
  useModalFocus(panel, () => panel.current?.querySelector<HTMLElement>('input, [data-autofocus]'));
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
          <button type="button" className="btn btn-secondary" onClick={onCancel} data-testid="confirm-cancel" data-autofocus={destructive || undefined}>
            {cancelLabel ?? m.common.cancel}
          </button>
          <button
            type="submit"
            className={`btn ${destructive ? 'btn-danger' : 'btn-primary'}`}
            disabled={busy || okDisabled}
            data-testid="confirm-ok"
            data-autofocus={!destructive || undefined}
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
  const panel = useRef<HTMLElement>(null);
  const closeRef = useRef<HTMLButtonElement>(null);
  useEscape(onClose);
  useModalFocus(panel, () => closeRef.current);
  return (
    <div className="overlay overlay-drawer" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <aside ref={panel} className="drawer" role="dialog" aria-modal="true" aria-labelledby="drawer-title" data-testid={testId}>
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
