// Small transient notifications ("Copiado"), announced politely to screen readers. Each stays long
// enough to be read — four seconds at least, more for a longer text, two more for an error — and
// waits while the pointer rests on it (WCAG 2.2.1: a moving-on the user can hold). A toast is kept
// as what it says, not as the text it said: the language switched while it shows, it follows.
import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useI18n, type I18n } from '../i18n';
import { IconCheck, IconAlert } from './Icons';

type Tone = 'success' | 'error' | 'info';
/** A toast's sentence in the language on screen: `(t) => t.m.common.copied`. */
export type Say = (i18n: I18n) => string;
interface Toast {
  id: number;
  say: Say;
  tone: Tone;
  /** How long it shows, in milliseconds, not counting time held under the pointer. */
  duration: number;
}

/** Reading time: 4 s at least, about 60 ms a character beyond that (roughly 200 words a minute); errors 2 s more. */
export function toastDuration(text: string, tone: Tone): number {
  return Math.max(4000, text.length * 60) + (tone === 'error' ? 2000 : 0);
}

const ToastContext = createContext<((say: Say, tone?: Tone) => void) | null>(null);

export function ToastProvider({ children }: { children: ReactNode }) {
  const i18n = useI18n();
  const [toasts, setToasts] = useState<Toast[]>([]);
  const [held, setHeld] = useState(false);
  const next = useRef(1);
  // Read through a ref so that `show` stays the same function when the language changes.
  const current = useRef(i18n);
  useEffect(() => {
    current.current = i18n;
  }, [i18n]);
  const show = useCallback((say: Say, tone: Tone = 'success') => {
    const id = next.current++;
    // Its time is that of the text it first showed; a switch of language does not restart it.
    setToasts((list) => [...list.slice(-2), { id, say, tone, duration: toastDuration(say(current.current), tone) }]);
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
  const i18n = useI18n();
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
      <span>{toast.say(i18n)}</span>
    </div>
  );
}

export function useToast(): (say: Say, tone?: Tone) => void {
  const ctx = useContext(ToastContext);
  if (!ctx) throw new Error('useToast outside ToastProvider');
  return ctx;
}
