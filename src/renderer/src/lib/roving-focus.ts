// WAI-ARIA's roving focus in a row of choices (a radio group, a tab list): one Tab stop, and the keys
// that move between the choices, wrapping at the ends. One rule for Segmented and Consulta's tabs.

/** Left/Right always; Up/Down for a radio group (its pattern has them), Home/End for a tab list (its has those). */
export interface RovingKeys {
  upDown?: boolean;
  homeEnd?: boolean;
}

/**
 * The index `key` moves to from `at` among `count` choices, or -1 when the key moves nothing (another
 * key, or one with a modifier, which belongs to the browser or the system).
 */
export function movedIndex(event: { key: string; altKey: boolean; ctrlKey: boolean; metaKey: boolean }, at: number, count: number, keys: RovingKeys): number {
  if (event.altKey || event.ctrlKey || event.metaKey || count === 0) return -1;
  const next = (step: number) => (at + step + count) % count;
  switch (event.key) {
    case 'ArrowRight':
      return next(1);
    case 'ArrowLeft':
      return next(-1);
    case 'ArrowDown':
      return keys.upDown ? next(1) : -1;
    case 'ArrowUp':
      return keys.upDown ? next(-1) : -1;
    case 'Home':
      return keys.homeEnd ? 0 : -1;
    case 'End':
      return keys.homeEnd ? count - 1 : -1;
    default:
      return -1;
  }
}
