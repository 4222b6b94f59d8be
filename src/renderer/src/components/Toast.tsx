// Small transient notifications ("Copiado"), announced politely to screen readers. Each stays long
// enough to be read — four seconds at least, more for a longer text, two more for an error — and
// waits while the pointer rests on it (WCAG 2.2.1: a moving-on the user can hold).
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { IconCheck, IconAlert } from './Icons';

type Tone = 'success' | 'error' | 'info';
interface Toast {
  id: number;
  text: string;
  tone: Tone;
  /** How long it shows, in milliseconds, not counting time held under the pointer. */
  duration: number;
}

/** Reading time: 4 s at least, about 60 ms a character beyond that (roughly 200 words a minute); errors 2 s more. */
export function toastDuration(text: string, tone: Tone): number {
  return Math.max(4000, text.length * 60) + (tone === 'error' ? 2000 : 0);
}

const ToastContext = createContext<((text: string, tone?: Tone) => void) | null>(null);

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const [held, setHeld] = useState(false);
  const next = useRef(1);
  const show = useCallback((text: string, tone: Tone = 'success') => {
    const id = next.current++;
    setToasts((list) => [...list.slice(-2), { id, text, tone, duration: toastDuration(text, tone) }]);
  }, []);
  const dismiss = useCallback((id: number) => setToasts((list) => list.filter((t) => t.id !== id)), []);
  // The last toast gone, nothing is under the pointer any more (no mouseleave follows a removed node).
  useEffect(() => {
    if (toasts.length === 0) setHeld(false);
  }, [toasts.length]);
  const value = useMemo(() => show, [show]);
  return (
    <ToastContext.Provider value={value}>
      {children}
      <div className="toasts" role="status" aria-live="polite" onMouseEnter={() => setHeld(true)} onMouseLeave={() => setHeld(false)}>
        {toasts.map((t) => (
          <ToastItem key={t.id} toast={t} held={held} onDone={dismiss} />
        ))}
      </div>
    </ToastContext.Provider>
  );
}

/** One toast: its time runs while it is not held, and resumes where it stopped. */
function ToastItem({ toast, held, onDone }: { toast: Toast; held: boolean; onDone: (id: number) => void }) {
  const remaining = useRef(toast.duration);
  useEffect(() => {
    if (held) return;
    const started = Date.now();
    const timer = window.setTimeout(() => onDone(toast.id), remaining.current);
    return () => {
      window.clearTimeout(timer);
      remaining.current = Math.max(0, remaining.current - (Date.now() - started));
    };
  }, [held, onDone, toast.id]);
  return (
    <div className={`toast toast-${toast.tone}`} data-testid="toast">
      {toast.tone === 'error' ? <IconAlert size={16} /> : <IconCheck size={16} />}
      <span>{toast.text}</span>
    </div>
  );
}

export function useToast(): (text: string, tone?: Tone) => void {
  const ctx = useContext(ToastContext);
  if (!ctx) throw new Error('useToast outside ToastProvider');
  return ctx;
}
