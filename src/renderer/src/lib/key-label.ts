// How the screens name an API key in a sentence or a cell: its name, or "Sin nombre (sk_live_Ab12…)"
// when it has none. Shared by Claves (rows, dialogs, the secret panel) and Historial (the key an API
// lookup came through), so a key reads the same on both.

export function keyLabel(key: { name: string | null; prefix: string }, unnamed: string): string {
  return key.name ?? `${unnamed} (${key.prefix})`;
}
