// Focus after an action: a button that disables itself while its request runs (or leaves the page
// when it is done) drops focus to <body>, and a keyboard user starts over from the sidebar.
import { useEffect, useState, type RefObject } from 'react';

type Target = RefObject<HTMLElement | null>;

/** Whether nothing has the focus: <body> (where Chromium puts it when a focused control is disabled or removed), or none. */
export function focusLost(): boolean {
  const active = document.activeElement;
  return !active || active === document.body;
}

function usable(el: HTMLElement | null): el is HTMLElement {
  return !!el && el.isConnected && !(el as HTMLButtonElement).disabled;
}

/**
 * Returns `refocus(...targets)`: after the render that follows (the request's outcome on screen), if
 * focus was lost, it goes to the first target that is on the page and enabled. Someone who moved on
 * meanwhile (clicked or tabbed elsewhere) keeps their focus.
 */
export function useRefocus(): (...targets: Target[]) => void {
  const [targets, setTargets] = useState<Target[] | null>(null);
  useEffect(() => {
    if (!targets) return;
    setTargets(null);
    if (!focusLost()) return;
    targets.map((t) => t.current).find(usable)?.focus();
  }, [targets]);
  return (...next: Target[]) => setTargets(next);
}

/**
 * While `take` is set: once `target` is on the page and enabled, focuses it if focus was lost, then
 * calls `done` (the request is spent either way). For a control that replaces the one that was
 * pressed but appears only when fresh data arrives (a banner's button, a new panel's title).
 */
export function useTakeFocus(target: Target, take: boolean, done: () => void): void {
  useEffect(() => {
    if (!take) return;
    const el = target.current;
    if (!usable(el)) return;
    if (focusLost()) el.focus();
    done();
  });
}
