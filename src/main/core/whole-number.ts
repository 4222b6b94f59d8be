// A whole number a person typed, for a CLI option (`--limit`, `--amount`) or an environment variable
// (TITULAR_PORT), read and refused in one wording wherever one is read: something that is not a whole
// number is "--limit must be a whole number (got "abc")", one out of range says the range and what was
// given, "--limit must be from 1 to 10,000 (got 0)" (also when it is negative or too large to be a number).

export interface WholeNumberRange {
  min: number;
  max: number;
  /** Write the bounds with thousands separators (10,000); off for numbers that are names, such as ports. */
  separators?: boolean;
}

export type WholeNumberReading = { ok: true; value: number } | { ok: false; message: string };

/** `raw` as a whole number in `range`, or its refusal naming `from` (the flag or variable it came from). */
export function readWholeNumber(raw: string, from: string, range: WholeNumberRange): WholeNumberReading {
  const trimmed = raw.trim();
  if (!/^-?\d+$/.test(trimmed)) return { ok: false, message: `${from} must be a whole number (got ${JSON.stringify(raw)})` };
  // + 0: "-0" is 0.
  const value = Number(trimmed) + 0;
  if (value < range.min || value > range.max) {
    const bound = (n: number) => (range.separators === false ? String(n) : n.toLocaleString('en'));
    return { ok: false, message: `${from} must be from ${bound(range.min)} to ${bound(range.max)} (got ${trimmed})` };
  }
  return { ok: true, value };
}
