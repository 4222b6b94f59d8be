// The consumption chart's axes: round steps up the side, evenly spaced days along the bottom.

/**
 * A y-axis from 0 in steps of 1, 2 or 5 × 10^n (whole credits, so never below 1) that reaches `max`,
 * with about `target` steps: 23 credits → 0, 10, 20, 30. The scale topped at 2.5 × 10^n before, and
 * then showed only 0 and 25, or 0 and 250.
 */
export function niceTicks(max: number, target = 4): number[] {
  // Never fewer than `target` credits high: one lookup does not fill the chart.
  const value = Math.max(max, target);
  const rough = value / target;
  const pow = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5].map((f) => f * pow).find((s) => s >= rough) ?? 10 * pow;
  const top = Math.ceil(value / step) * step;
  return Array.from({ length: top / step + 1 }, (_, i) => i * step);
}

/**
 * Which of `count` evenly spaced slots carry a label: every k-th one counted back from the last (today,
 * always labelled), k the least that leaves `minGap` pixels between labels. Labels every third day
 * "and the last" put two days between the last two and three between the others.
 */
export function labelledSlots(count: number, slotWidth: number, minGap: number): Set<number> {
  const every = Math.max(1, Math.ceil(minGap / Math.max(slotWidth, 1)));
  const slots = new Set<number>();
  for (let i = count - 1; i >= 0; i -= every) slots.add(i);
  return slots;
}
