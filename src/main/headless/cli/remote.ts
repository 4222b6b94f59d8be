// `titular remote set|set-key|remove-key|status|test` and `titular resolver set|show`: the admin's
// configuration of the remote resolver and of which resolver answers each product. The upstream
// key is read from stdin (or a hidden prompt), never echoed, never printed, never audited.
import {
  MAX_TIMEOUT_MS,
  MIN_TIMEOUT_MS,
  configureRemote,
  deleteUpstreamKey,
  remoteBaseUrlProblem,
  remoteSettings,
  setResolverMode,
  setUpstreamKey,
  upstreamKeyProblem,
  type RemoteSettingsView,
} from '../../core/resolvers/remote-config';
import { REMOTE_DEFAULTS } from '../../core/resolvers/remote-resolver';
import type { ProductSlug } from '../../../shared/api/common';
import { UsageError, booleanOption, oneOf, stringOption, wholeNumber } from './args';
import { CliError, type CommandSpec, type SessionContext } from './context';
import { formatInstant, type Output } from './output';
import { sayStopped, signalExitCode } from './interrupt';

const PRODUCTS = ['cbu', 'informes'] as const;
const MODES = ['directory', 'remote'] as const;
const MAX_KEY_INPUT_BYTES = 4096;

const actorOf = (ctx: SessionContext) => ({ orgId: ctx.org.id, actorUserId: ctx.actor.id });

/** The retry and breaker numbers the server runs with, for `remote status`. */
const POLICY = {
  attempts: REMOTE_DEFAULTS.attempts,
  backoffBaseMs: REMOTE_DEFAULTS.backoffBaseMs,
  backoffMaxMs: REMOTE_DEFAULTS.backoffMaxMs,
  deadlineMs: REMOTE_DEFAULTS.deadlineMs,
  maxRetryAfterMs: REMOTE_DEFAULTS.maxRetryAfterMs,
  breakerFailureThreshold: REMOTE_DEFAULTS.failureThreshold,
  breakerCooldownMs: REMOTE_DEFAULTS.cooldownMs,
};

function lastUpstreamError(ctx: SessionContext) {
  const entry = ctx.titular.audit.list(ctx.org.id, { targetType: 'settings', limit: 200 }).find((e) => e.action === 'remote.upstream_error');
  if (!entry) return null;
  const { kind, httpStatus, message } = entry.details as { kind?: string; httpStatus?: number | null; message?: string };
  return { kind: kind ?? null, httpStatus: httpStatus ?? null, message: message ?? null, at: entry.createdAt };
}

function settingsRows(view: RemoteSettingsView): [string, string][] {
  return [
    ['CBU lookups', view.resolvers.cbu],
    ['Credit reports', view.resolvers.informes],
    ['Remote base URL', view.baseUrl ?? '(not set)'],
    ['Remote timeout', `${view.timeoutMs} ms per attempt`],
    ['Upstream key', view.keySet ? 'set (sealed in the vault)' : '(not set)'],
  ];
}

function printSettings(out: Output, view: RemoteSettingsView): void {
  out.fields(settingsRows(view));
}

/** Warns about a remote setting that will answer GE500 until the rest is configured. */
function warnIncomplete(out: Output, view: RemoteSettingsView): void {
  const usesRemote = PRODUCTS.filter((p) => view.resolvers[p] === 'remote');
  if (usesRemote.length === 0) return;
  const missing = [view.baseUrl ? null : 'base URL (titular remote set --url URL)', view.keySet ? null : 'upstream key (titular remote set-key)'].filter(Boolean);
  if (missing.length > 0) {
    out.warn(`Warning: ${usesRemote.join(' and ')} lookups use the remote resolver, which has no ${missing.join(' and no ')}: they answer 503 GE500 until it does.`);
  }
}

async function readStdin(limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buffer.length;
    if (size > limit) throw new CliError(`stdin holds more than ${limit} bytes; expected one upstream key`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Reads one line from the terminal without echoing it; null when Ctrl-C was pressed (in raw mode it
 * arrives as a character, not as SIGINT, so the command says it and answers 130 itself).
 */
function promptHidden(prompt: string): Promise<string | null> {
  const stdin = process.stdin;
  return new Promise((resolve) => {
    process.stderr.write(prompt);
    stdin.setRawMode(true);
    stdin.setEncoding('utf8');
    stdin.resume();
    let value = '';
    const finish = (interrupted = false) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      resolve(interrupted ? null : value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return finish();
        if (ch === '\u0003') return finish(true);
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.on('data', onData);
  });
}

/** The quiet way to give the upstream key. */
const PIPE_KEY = 'printf %s "$KEY" | titular remote set-key';

/** "the upstream key is …" as the opening of a sentence. */
const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * The key given, or null when its prompt was interrupted. An empty one is a usage error (exit 2), as
 * an empty --reference is, said before the shell-history warning: there is no key to warn about.
 */
async function readKey(ctx: SessionContext): Promise<string | null> {
  const fromArgv = stringOption(ctx.values, 'key');
  const fromStdin = booleanOption(ctx.values, 'key-stdin');
  if (fromArgv !== undefined && fromStdin) throw new UsageError('Give the key either with --key or on stdin, not both', ctx.command);
  if (fromArgv !== undefined) {
    if (fromArgv.trim() === '') throw new UsageError(`--key needs a value (or leave it out and pipe the key on stdin: ${PIPE_KEY})`, ctx.command);
    ctx.out.warn(`Warning: --key leaves the upstream key in your shell history and the process list; prefer: ${PIPE_KEY}`);
    return fromArgv.trim();
  }
  if (!fromStdin && process.stdin.isTTY) {
    const typed = (await promptHidden('Upstream key (input hidden): '))?.trim() ?? null;
    if (typed === '') throw new UsageError('The upstream key is empty: nothing was typed', ctx.command);
    return typed;
  }
  const piped = (await readStdin(MAX_KEY_INPUT_BYTES)).trim();
  if (piped === '') throw new UsageError(`The upstream key is empty: stdin held no key (${PIPE_KEY})`, ctx.command);
  return piped;
}

export const remoteCommands: CommandSpec[] = [
  {
    name: 'remote set',
    synopsis: '[--url URL] [--timeout-ms N] [--clear-url]',
    summary: 'Configure the remote Account Lookup API that the remote resolver forwards to',
    details: [
      '--url URL          base URL of the compatible API, e.g. https://api.example.com (https only;',
      '                   plain http only to this machine: localhost, 127.x.x.x or [::1])',
      '--timeout-ms N     timeout of one upstream attempt, 100 to 60000 (default 5000)',
      '--clear-url        remove the base URL (remote lookups then answer GE500)',
      '',
      'Changes apply to the next lookup, also in a running server. A URL moved to another origin',
      '(scheme, host or port), or cleared, removes the stored upstream key: every lookup sends the key',
      'to the URL, so it stays with the API it was entered for. Store the new API\'s key with set-key.',
    ],
    options: { url: { type: 'string' }, 'timeout-ms': { type: 'string' }, 'clear-url': { type: 'boolean' } },
    access: 'admin',
    vault: 'locked',
    run(ctx) {
      const url = stringOption(ctx.values, 'url');
      const timeout = stringOption(ctx.values, 'timeout-ms');
      const clear = booleanOption(ctx.values, 'clear-url');
      if (url === undefined && timeout === undefined && !clear) throw new UsageError('Give --url URL, --timeout-ms N or --clear-url', ctx.command);
      if (url !== undefined && clear) throw new UsageError('Give either --url or --clear-url', ctx.command);
      if (url !== undefined) {
        const problem = remoteBaseUrlProblem(url.trim());
        if (problem) throw new UsageError(`--url: ${problem}`, ctx.command);
      }
      let timeoutMs: number | undefined;
      if (timeout !== undefined) {
        timeoutMs = wholeNumber(timeout, '--timeout-ms', ctx.command, { min: MIN_TIMEOUT_MS, max: MAX_TIMEOUT_MS });
      }
      // --clear-url alone with no URL set: already as asked (exit 0, as for remove-key), nothing recorded.
      const before = remoteSettings(ctx.titular);
      const unchanged = clear && timeoutMs === undefined && before.baseUrl === null;
      const view = unchanged ? before : configureRemote(ctx.titular, actorOf(ctx), { baseUrl: clear ? null : url, timeoutMs });
      const keyRemoved = before.keySet && !view.keySet;
      if (unchanged && !ctx.out.json) ctx.out.line('No remote base URL was set; nothing changed.');
      if (ctx.out.json) {
        ctx.out.data({ ...view, upstreamKeyRemoved: keyRemoved });
        return;
      }
      if (keyRemoved) ctx.out.line(`The upstream key was removed: it was entered for ${new URL(before.baseUrl!).origin}, and lookups would send it to the new URL.`);
      printSettings(ctx.out, view);
      if (!view.keySet) ctx.out.line('Next: store the upstream key with `titular remote set-key` (reads it from stdin).');
      warnIncomplete(ctx.out, view);
    },
  },
  {
    name: 'remote set-key',
    synopsis: '[--key-stdin | --key KEY]',
    summary: 'Store the upstream API key, sealed in the vault',
    details: [
      'The key is read from stdin (e.g. printf %s "$KEY" | titular remote set-key), or asked for',
      'without echo on a terminal. It is never printed; the audit log records only that it changed.',
      '--key-stdin        read the key from stdin even on a terminal (until end of input)',
      '--key KEY          take it from the command line (discouraged: shell history, process list)',
    ],
    options: { key: { type: 'string' }, 'key-stdin': { type: 'boolean' } },
    access: 'admin',
    // Seals the upstream key.
    vault: 'unlocked',
    async run(ctx) {
      const key = await readKey(ctx);
      if (key === null) {
        sayStopped(ctx.out, 'the upstream key was not changed');
        return signalExitCode('SIGINT');
      }
      const problem = upstreamKeyProblem(key);
      if (problem) throw new CliError(`${capitalized(problem)}; the upstream key was not changed`);
      const replaced = ctx.titular.secrets.has('remote.upstreamKey');
      setUpstreamKey(ctx.titular, actorOf(ctx), key);
      if (ctx.out.json) {
        ctx.out.data({ keySet: true, replaced });
        return;
      }
      ctx.out.line(`Upstream key ${replaced ? 'replaced' : 'stored'} (sealed in the vault).`);
      if (key.startsWith('sk_test_')) ctx.out.warn('Note: this is a sandbox key: the upstream will answer its sample data.');
      warnIncomplete(ctx.out, remoteSettings(ctx.titular));
    },
  },
  {
    name: 'remote remove-key',
    synopsis: '',
    summary: 'Delete the stored upstream key',
    options: {},
    access: 'admin',
    // Deletes the sealed key without opening it.
    vault: 'locked',
    run(ctx) {
      const removed = deleteUpstreamKey(ctx.titular, actorOf(ctx));
      if (ctx.out.json) ctx.out.data({ removed });
      else ctx.out.line(removed ? 'Upstream key deleted.' : 'No upstream key was stored; nothing changed.');
      warnIncomplete(ctx.out, remoteSettings(ctx.titular));
    },
  },
  {
    name: 'remote status',
    synopsis: '',
    summary: 'Show the resolver settings, the remote configuration and the last upstream problem',
    options: {},
    access: 'admin',
    // Says whether a key is stored, never opens it.
    vault: 'locked',
    run(ctx) {
      const view = remoteSettings(ctx.titular);
      const lastError = lastUpstreamError(ctx);
      if (ctx.out.json) {
        ctx.out.data({ ...view, policy: POLICY, lastUpstreamError: lastError });
        return;
      }
      ctx.out.fields([
        ...settingsRows(view),
        [
          'Retries',
          `${POLICY.attempts} attempts, backoff ${POLICY.backoffBaseMs} ms doubling (max ${POLICY.backoffMaxMs} ms) with jitter, ${POLICY.deadlineMs / 1000} s overall`,
        ],
        ['Circuit breaker', `opens after ${POLICY.breakerFailureThreshold} consecutive failures, for ${POLICY.breakerCooldownMs / 1000} s`],
        [
          'Last upstream problem',
          lastError ? `${lastError.message ?? lastError.kind} (${formatInstant(lastError.at)})` : '(none recorded)',
        ],
      ]);
      ctx.out.line('The circuit state lives in the running server; the desktop Settings screen shows it.');
      warnIncomplete(ctx.out, view);
    },
  },
  {
    name: 'remote test',
    synopsis: '',
    summary: 'Call the upstream once (GET /api/v1/balance, no credit spent) to check the URL and the key',
    options: {},
    access: 'admin',
    // Opens the upstream key to call with it.
    vault: 'unlocked',
    async run(ctx) {
      const result = await ctx.titular.remote.testConnection();
      if (ctx.out.json) {
        ctx.out.data(result);
        return result.ok ? 0 : 1;
      }
      if (result.ok) {
        ctx.out.line(`OK: ${result.message} (${result.latencyMs} ms).`);
        for (const b of result.balances ?? []) ctx.out.line(`  upstream ${b.productSlug} balance: ${b.balance}`);
        return 0;
      }
      throw new CliError(`The remote test failed: ${result.message}${result.latencyMs ? ` (${result.latencyMs} ms)` : ''}`);
    },
  },
  {
    name: 'resolver set',
    synopsis: 'cbu|informes directory|remote',
    summary: 'Choose where live lookups of a product are answered (sandbox keys always use the sample data)',
    details: [
      'directory   the organization\'s imported directory (the default)',
      'remote      the remote Account Lookup API (titular remote set, titular remote set-key)',
      '',
      'Applies to the next lookup, also in a running server.',
    ],
    options: {},
    maxArgs: 2,
    access: 'admin',
    vault: 'locked',
    run(ctx) {
      const [productArg, modeArg] = ctx.args;
      if (productArg === undefined || modeArg === undefined) throw new UsageError('Usage: titular resolver set cbu|informes directory|remote', ctx.command);
      const product: ProductSlug = oneOf(productArg, PRODUCTS, 'product', ctx.command);
      const mode = oneOf(modeArg, MODES, 'resolver', ctx.command);
      // Already so: said as such (exit 0), and no settings change is recorded.
      const already = remoteSettings(ctx.titular).resolvers[product] === mode;
      if (!already) setResolverMode(ctx.titular, actorOf(ctx), product, mode);
      const view = remoteSettings(ctx.titular);
      if (ctx.out.json) {
        ctx.out.data(view);
        return;
      }
      ctx.out.line(`Live ${product} lookups ${already ? 'were already' : 'are now'} answered by the ${mode} resolver.`);
      warnIncomplete(ctx.out, view);
    },
  },
  {
    name: 'resolver show',
    synopsis: '',
    summary: 'Show which resolver answers each product',
    options: {},
    access: 'admin',
    vault: 'locked',
    run(ctx) {
      const view = remoteSettings(ctx.titular);
      if (ctx.out.json) {
        ctx.out.data(view);
        return;
      }
      printSettings(ctx.out, view);
      warnIncomplete(ctx.out, view);
    },
  },
];
