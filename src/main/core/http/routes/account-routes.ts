// GET /api/v1/balance (both products) and GET /api/v1/history (CBU keys).
import type { FastifyInstance } from 'fastify';
import type { Titular } from '../../titular';
import { historyQuerySchema } from '../../../../shared/api/history';
import type { Authorize } from '../authorize';
import { sendError } from '../error-reply';

export function registerAccountRoutes(app: FastifyInstance, titular: Titular, authorize: Authorize): void {
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
    // The contract's entry (spec 2.3) has no key: the desktop's extra field stays off the HTTP API.
    return { data: page.data.map(({ apiKey: _key, ...entry }) => entry), pagination: page.pagination };
  });
}
