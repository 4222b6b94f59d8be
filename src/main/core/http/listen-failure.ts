// The API's port taken by another process: said as such, not as listen's "EADDRINUSE: address
// already in use 127.0.0.1:8787". Most often it is another Titular (a second `serve`, or the desktop).

/** listen(2) found the address taken (EADDRINUSE). */
export function isAddressInUse(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'EADDRINUSE';
}

/** `serve`'s refusal of a port in use; `how` names the way to choose another (`--port`). */
export function portInUseMessage(port: number, how: string): string {
  return `port ${port} on 127.0.0.1 is in use (another Titular server?): stop it or choose another with ${how}`;
}
