// Errors the core raises on purpose. Each carries the HTTP status and code of the error body
// (decisions "Error body"), so every interface (HTTP, IPC, CLI) reports them the same way.
import type { ErrorCode } from '../../shared/api/common';

export class TitularError extends Error {
  override name = 'TitularError';
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly extras: { creditsRemaining?: number; headers?: Record<string, string> } = {},
  ) {
    super(message);
  }
}

export const invalidParameter = (message: string) => new TitularError(400, 'INVALID_PARAMETER', message);

/**
 * A request refused because of what is already recorded (a repeated email, a revoked key, a used
 * purchase reference, a finished job), not because of a value it carries. Over HTTP and IPC it is the
 * same 400 INVALID_PARAMETER; the CLI tells it apart: it is no command-line mistake (exit 1, not 2).
 */
export class StateRefusal extends TitularError {
  override name = 'StateRefusal';
  constructor(message: string) {
    super(400, 'INVALID_PARAMETER', message);
  }
}

export const stateRefusal = (message: string) => new StateRefusal(message);
export const notFound = (message: string) => new TitularError(404, 'NOT_FOUND', message);
