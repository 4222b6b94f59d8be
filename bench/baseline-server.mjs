// The baseline: a bare Fastify route that returns a fixed body of exactly the size of a lookup answer.
// Whatever Titular adds (auth, rate limit, validation, resolution, the charge's transaction) is the
// difference between this and the real route, measured in the same run on the same machine.
import Fastify from 'fastify';

const size = Number(process.argv[2] ?? 500);
const shell = JSON.stringify({ success: true, data: { pad: '' } });
const body = JSON.stringify({ success: true, data: { pad: 'x'.repeat(Math.max(0, size - shell.length)) } });
const app = Fastify({ logger: false });
app.get('/api/v1/lookup', async (_request, reply) => reply.header('content-type', 'application/json; charset=utf-8').send(body));
const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`listening on ${address}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
