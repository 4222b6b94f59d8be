// A single choice shown as segmented buttons ("Automático | CBU/CVU | Alias"), behaving as WAI-ARIA's
// radio group: one Tab stop (the checked option, or the first when none is), Arrow keys move to the
// previous or next option and select it (wrapping at the ends), Space selects the focused one. The
// mouse works as before: a click selects.
import { useRef, type KeyboardEvent, type ReactNode } from 'react';
import { movedIndex } from '../lib/roving-focus';

export type SegmentedOption<T extends string> = { value: T; label: ReactNode; testId?: string };

type Props<T extends string> = {
  options: readonly SegmentedOption<T>[];
  value: T | null | undefined;
  onChange: (value: T) => void;
  /** The group's accessible name: a visible label's id, or a name of its own. */
  labelledBy?: string;
  label?: string;
  small?: boolean;
  testId?: string;
};

export function Segmented<T extends string>({ options, value, onChange, labelledBy, label, small, testId }: Props<T>) {
  const group = useRef<HTMLDivElement>(null);
  const checked = options.findIndex((o) => o.value === value);
  const tabStop = checked >= 0 ? checked : 0;

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const radios = Array.from(group.current?.querySelectorAll<HTMLButtonElement>('[role="radio"]') ?? []);
    const from = radios.indexOf(document.activeElement as HTMLButtonElement);
    const to = from < 0 ? -1 : movedIndex(e, from, options.length, { upDown: true });
    if (to < 0) return;
    e.preventDefault(); // not a page scroll
    radios[to]?.focus();
    onChange(options[to]!.value);
  };

  return (
    <div
      ref={group}
      className={`segmented${small ? ' small' : ''}`}
      role="radiogroup"
      aria-labelledby={labelledBy}
      aria-label={labelledBy ? undefined : label}
      onKeyDown={onKeyDown}
      data-testid={testId}
    >
      {options.map((opt, i) => (
        <button
          key={opt.value}
          type="button"
          role="radio"
          aria-checked={i === checked}
          tabIndex={i === tabStop ? 0 : -1}
          className={i === checked ? 'on' : ''}
          onClick={() => onChange(opt.value)}
          data-testid={opt.testId}
        >
          {opt.label}
        </button>
      ))}
    </div>
  );
}
