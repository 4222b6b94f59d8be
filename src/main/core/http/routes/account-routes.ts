// GET /api/v1/balance (both products) and GET /api/v1/history (CBU keys).
import type { FastifyInstance } from 'fastify';
import type { Titular } from '../../titular';
import { damagedFields, historyQuerySchema } from '../../../../shared/api/history';
import type { Authorize } from '../authorize';
import { sendError } from '../error-reply';
import type { FaultReport } from '../fault-report';
import { DamagedRecordError } from '../../db/stored-json';
import { contractEntry, fieldWords } from '../../history/stored-entry';

export function registerAccountRoutes(app: FastifyInstance, titular: Titular, authorize: Authorize, reportFault: FaultReport): void {
  app.get('/api/v1/balance', { onRequest: authorize({ products: ['cbu', 'informes'], scope: 'balance' }) }, async (request) => {
    const balances = titular.ledger.balances(request.apiKey!.orgId);
    // With synchronous=FULL, an answer never shows a charge that is not on disk yet.
    await titular.commits.settled();
    return { balances };
  });

  app.get('/api/v1/history', { onRequest: authorize({ products: ['cbu'], scope: 'history' }) }, async (request, reply) => {
    const parsed = historyQuerySchema.safeParse(request.query);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.join('.') || '';
      // The schema's messages name their parameter (shared/api/history.ts); any other is prefixed with it.
      const said = issue?.message ?? 'invalid query';
      const message =
        issue?.code === 'unrecognized_keys' ? `Unknown query parameter: ${issue.keys.join(', ')}` : field && !said.startsWith(`${field} `) ? `${field}: ${said}` : said;
      return sendError(reply, 400, 'INVALID_PARAMETER', message);
    }
    const key = request.apiKey!;
    const page = titular.history.page({ orgId: key.orgId, environment: key.environment, product: key.product }, parsed.data);
    await titular.commits.settled();
    // The contract's entry (spec 2.3) has no key: the desktop's extra fields stay off the HTTP API.
    // An entry with a field that cannot be read (a status outside its set, credits that are no
    // number: history/stored-entry.ts) has no place in the contract's shape, and any value put there
    // would be made up: it is left out of the page, which still counts it in `total`, and the host's
    // log names it. The desktop's Historial and the exports list it, marked. (An unreadable answer
    // alone is listed, as `{ "damaged": true }`.)
    const data = [];
    for (const entry of page.data) {
      const answered = contractEntry(entry);
      if (answered) data.push(answered);
      else reportFault(request.id, new DamagedRecordError(`History entry left out of the page: its ${fieldWords(damagedFields(entry))} cannot be read (damaged in Titular's database); the desktop's Historial lists it`, entry.id), 'listing the history:');
    }
    return { data, pagination: page.pagination };
  });
}
