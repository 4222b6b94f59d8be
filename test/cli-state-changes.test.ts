// Commands that put something in a state, run as processes. One rule: asked for the state it is
// already in, a command says so and succeeds (exit 0: a script has nothing to fix) — cancelling a
// cancelled bulk job as revoking a revoked key; a transition that cannot be made is refused (exit 1:
// cancelling a completed job). And a bulk job's counts are the same wherever they are said: the run's
// summary, `bulk cancel` and `bulk list --json` (`bulk cancel` used to count as errors the
// identifiers the data source could not answer).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from './support/processes';
import { withCheckDigits } from '../src/shared/identifiers';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TIMEOUT_MS = 120_000;
const FOUND = ['0290001800000000007773', '2850590900000012345674', '0070123100000004567893'];
const NOT_FOUND = withCheckDigits('285', '0590', '0000000000001');

describe('titular: already so, or impossible', () => {
  let work: string;
  let dataDir: string;
  const cli = (args: string[]): Promise<CliRun> => runCli([...args, '--data-dir', dataDir], { timeoutMs: 60_000 });
  const ok = async (args: string[]): Promise<string> => {
    const run = await cli(args);
    expect(run.code, `titular ${args.join(' ')}\n${run.stdout}${run.stderr}`).toBe(0);
    return run.stdout;
  };
  const list = (name: string, lines: string[]) => {
    const file = path.join(work, name);
    writeFileSync(file, `${lines.join('\n')}\n`);
    return file;
  };
  const jobOf = (stdout: string) => /job ([0-9a-f-]{36})/.exec(stdout)![1]!;
  /** The counts in parentheses of a summary line: "found 1, not found 1, errors 0, unavailable 2; 2 credits charged in total". */
  const countsIn = (line: RegExp, stdout: string) => line.exec(stdout)?.[1];

  beforeAll(async () => {
    work = mkdtempSync(path.join(os.tmpdir(), 'titular-cli-states-'));
    dataDir = path.join(work, 'data');
    await ok(['init', '--org', 'Acme SA', '--admin-name', 'Ana Admin', '--admin-email', 'ana@acme.test']);
    const accounts = path.join(work, 'accounts.csv');
    writeFileSync(accounts, readFileSync(path.join(ROOT, 'examples/accounts.csv'), 'utf8'));
    await ok(['directory', 'import', accounts]);
  }, TIMEOUT_MS);

  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });

  it('a bulk job with lookups found, not found and unanswered: its run, its cancel and its listing say the same counts', async () => {
    // Two credits for four identifiers, one at a time: the first two are looked up (found, not found).
    await ok(['credits', 'add', '--product', 'cbu', '--amount', '2']);
    const file = list('mixed.txt', [FOUND[0]!, NOT_FOUND, FOUND[1]!, FOUND[2]!]);
    const first = await cli(['bulk', 'run', file, '--concurrency', '1']);
    expect(first.code, first.stdout + first.stderr).toBe(3);
    const jobId = jobOf(first.stdout);
    // The rest goes to a remote API with no key: GE500, not charged, left pending (unavailable).
    await ok(['remote', 'set', '--url', 'http://127.0.0.1:9']);
    await ok(['resolver', 'set', 'cbu', 'remote']);
    await ok(['credits', 'add', '--product', 'cbu', '--amount', '10']);
    const resumed = await cli(['bulk', 'resume', jobId]);
    expect(resumed.code, resumed.stdout + resumed.stderr).toBe(4);
    const counts = 'found 1, not found 1, errors 0, unavailable 2; 2 credits charged in total';
    expect(countsIn(/^Stopped before the end: 2 of 4 done \((.+)\)\.$/m, resumed.stdout), resumed.stdout).toBe(counts);
    // The progress lines on stderr count the same way.
    expect(resumed.stderr).not.toMatch(/errors [1-9]/);

    const cancelled = await cli(['bulk', 'cancel', jobId]);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(countsIn(new RegExp(`^Cancelled job ${jobId}: 2 of 4 were done \\((.+)\\)\\.$`, 'm'), cancelled.stdout), cancelled.stdout).toBe(counts);
    const listed = JSON.parse(await ok(['bulk', 'list', '--json'])) as { jobs: { id: string; status: string; progress: Record<string, number> }[] };
    expect(listed.jobs.find((j) => j.id === jobId)).toMatchObject({ status: 'cancelled', progress: { done: 2, found: 1, notFound: 1, errors: 0, retryable: 2, charged: 2 } });
    await ok(['resolver', 'set', 'cbu', 'directory']);
  }, TIMEOUT_MS);

  it('a cancelled bulk job cancelled again: already so, exit 0, with its counts', async () => {
    // No credit reports bought: the job stops at once, out of credits, nothing done.
    const stopped = await cli(['bulk', 'run', list('cancel-twice.txt', ['20-28765432-5', '30-71234567-1']), '--product', 'informes']);
    expect(stopped.code, stopped.stdout + stopped.stderr).toBe(3);
    const jobId = jobOf(stopped.stdout);
    expect(await ok(['bulk', 'cancel', jobId])).toMatch(new RegExp(`^Cancelled job ${jobId}: 0 of 2 were done`));
    const again = await cli(['bulk', 'cancel', jobId]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(`Job ${jobId} was already cancelled: 0 of 2 were done (found 0, not found 0, errors 0; 0 credits charged in total).\n`);
    const againJson = await cli(['bulk', 'cancel', jobId, '--json']);
    expect(againJson.code, againJson.stderr).toBe(0);
    expect(JSON.parse(againJson.stdout)).toMatchObject({ alreadyCancelled: true, job: { id: jobId, status: 'cancelled' } });
  }, TIMEOUT_MS);

  it('a completed bulk job cannot be cancelled: exit 1, naming its results', async () => {
    await ok(['resolver', 'set', 'cbu', 'directory']);
    await ok(['credits', 'add', '--product', 'cbu', '--amount', '1']);
    const done = await cli(['bulk', 'run', list('done.txt', [FOUND[2]!])]);
    expect(done.code, done.stdout + done.stderr).toBe(0);
    const jobId = jobOf(done.stdout);
    const refused = await cli(['bulk', 'cancel', jobId]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`titular: Bulk job ${jobId} is completed: there is nothing left to cancel. Its results: titular bulk export ${jobId}\n`);
    expect(refused.stdout).toBe('');
  }, TIMEOUT_MS);

  it('a revoked key revoked again, a resolver set to what it is, a URL cleared twice: exit 0, saying so, recording nothing more', async () => {
    const { id } = JSON.parse(await ok(['keys', 'create', '--product', 'cbu', '--scopes', 'lookup', '--json'])) as { id: string };
    expect(await ok(['keys', 'revoke', id])).toMatch(/^Revoked key /);
    expect(await ok(['keys', 'revoke', id])).toMatch(new RegExp(`^Key ${id} was already revoked`));

    const audited = async () => (JSON.parse(await ok(['audit', '--json', '--limit', '10000'])) as unknown[]).length;
    const before = await audited();
    expect(await ok(['resolver', 'set', 'informes', 'directory'])).toContain('Live informes lookups were already answered by the directory resolver.');
    expect(await ok(['remote', 'set', '--clear-url'])).toContain('Remote base URL:');
    expect(await ok(['remote', 'set', '--clear-url'])).toContain('No remote base URL was set; nothing changed.');
    expect(await ok(['remote', 'remove-key'])).toContain('No upstream key was stored; nothing changed.');
    // Only the first --clear-url changed something.
    expect(await audited()).toBe(before + 1);
  }, TIMEOUT_MS);
});
