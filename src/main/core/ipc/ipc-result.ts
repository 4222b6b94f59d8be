// How a channel's outcome crosses to the renderer (preload and HTTP bridge alike): `{ ok: true, value }`,
// or `{ ok: false, error }` for an error the caller should see, a full disk or a busy database included
// (db/plain-faults.ts).
// Anything else propagates to the transport, which answers it as an internal error without details.
import { saidPlainly } from '../db/plain-faults';
import { TitularError } from '../errors';
import type { IpcResult } from '../../../shared/ipc/contract';

/** `dataDir`: the open core's, so that a write that found its disk full is said as such. */
export async function asIpcResult(run: () => unknown, dataDir?: string): Promise<IpcResult<unknown>> {
  try {
    return { ok: true, value: await run() };
  } catch (caught) {
    const error = saidPlainly(caught, dataDir);
    if (!(error instanceof TitularError)) throw error;
    return { ok: false, error: { code: error.code, message: error.message, status: error.status } };
  }
}
