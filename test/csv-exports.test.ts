// The desktop's CSV exports (history.exportCsv, bulk.exportCsv over the headless bridge) speak the
// screen's language for a spreadsheet: Spanish (the default) splits cells at ";" for Excel set to
// es-AR, with dd/mm/aaaa times in the screen's time zone and the core's messages in Spanish; English
// uses commas; a CBU stays 22 digits. The CLI's exports keep the interchange form.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { auth } from './support/fixture';
import { createBridgeFixture, type BridgeFixture } from './support/bridge-fixture';
import { DIR, DIRECTORY_CSV, breakCheckDigit } from './support/directory-data';
import { csvCells } from './bulk/bulk-data';
import { importCreditRecords } from './support/credit-data';

let f: BridgeFixture;
let keyPrefix: string;
const savedTz = process.env.TZ;

beforeAll(async () => {
  f = await createBridgeFixture({ credits: { cbu: 100, informes: 10 } });
  f.importDirectory(DIRECTORY_CSV);
  // From the desktop: a found account (a holder name with a comma), a CBU not in the directory.
  await value('lookup.account', { identifier: DIR.company.cbu, type: 'cbu' });
  await value('lookup.account', { identifier: DIR.missing.cbu, type: 'cbu' });
  // From a local tool: an alias that fails validation (PA006, charged), through a key whose name a
  // spreadsheet would take for a formula.
  const key = f.createKey({ name: '=ERP; cobranzas' });
  keyPrefix = `${key.slice(0, 12)}…`;
  const res = await f.app.inject({ method: 'GET', url: '/api/v1/lookup?identifier=ab&type=alias', headers: { ...auth(key), host: '127.0.0.1' } });
  expect(res.statusCode).toBe(400);
});
afterEach(() => {
  if (savedTz === undefined) delete process.env.TZ;
  else process.env.TZ = savedTz;
});
afterAll(async () => {
  await f.close();
});

const value = (channel: string, input: unknown) => f.value(channel, input);

const lines = (csv: string) => csv.split('\r\n').filter((l) => l !== '');
/** A CBU as a spreadsheet CSV writes it: ="…", so it stays 22 digits instead of becoming a number. */
const text = (digits: string) => `"=""${digits}"""`;
const pad = (n: number) => String(n).padStart(2, '0');
/** The wall-clock time of an instant `offsetHours` from UTC, as the Spanish export writes it. */
function fecha(iso: string, offsetHours: number): string {
  const t = new Date(Date.parse(iso) + offsetHours * 3_600_000);
  return `${pad(t.getUTCDate())}/${pad(t.getUTCMonth() + 1)}/${t.getUTCFullYear()} ${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}`;
}

/** The history entries as the API lists them, newest first. */
async function entries() {
  return (await value('history.list', { page: 1, per_page: 50 })).data as { id: string; createdAt: string; inputIdentifier: string }[];
}

describe('history.exportCsv', () => {
  it('in Spanish by default: ";" between cells, Spanish headers and words, local dd/mm/aaaa times, CBUs as text', async () => {
    // Without the screen's zone, this process's. Buenos Aires is UTC-3 all year.
    process.env.TZ = 'America/Argentina/Buenos_Aires';
    const exported = await value('history.exportCsv', {});
    expect(exported.fileName).toMatch(/^titular-historial-\d{4}-\d{2}-\d{2}\.csv$/);
    expect(exported.rows).toBe(3);
    const [header, ...rows] = lines(exported.csv);
    expect(header).toBe('\uFEFFID de consulta;Fecha;Identificador;Tipo;Estado;Origen;Créditos;Demora de la fuente (ms);Usuario;Clave de API;Titulares;Código de error');
    const listed = await entries();
    expect(rows.map((r) => r.split(';')[0])).toEqual(listed.map((e) => e.id));

    const entry = listed.find((e) => e.inputIdentifier === DIR.company.cbu)!;
    const company = rows.find((r) => r.startsWith(entry.id))!;
    // The holder's name holds a comma: quoted all the same, for a spreadsheet that splits at ",".
    expect(company.split(';')).toEqual([entry.id, fecha(entry.createdAt, -3), text(DIR.company.cbu), 'CBU', 'Exitosa', 'Escritorio', '1', expect.stringMatching(/^\d+$/), 'ada@acme.test', '', '"Distribuidora Sur, S.R.L."', '']);
    expect(rows.find((r) => r.includes(DIR.missing.cbu))).toMatch(/;CBU;Error;Escritorio;1;\d+;ada@acme\.test;;;PA011$/);
    // The key the lookup came through, named as Claves shows it, defused and quoted (it holds ";").
    const api = rows.find((r) => r.includes(';ab;'))!;
    expect(api).toMatch(/;ab;ALIAS;Error;API;1;\d+;ada@acme\.test;/);
    expect(csvCells(api, ';').slice(8)).toEqual(['ada@acme.test', `'=ERP; cobranzas (${keyPrefix})`, '', 'PA006']);
  });

  it('in English: commas, English headers and words, yyyy-mm-dd times', async () => {
    process.env.TZ = 'UTC';
    const exported = await value('history.exportCsv', { language: 'en' });
    expect(exported.fileName).toMatch(/^titular-history-\d{4}-\d{2}-\d{2}\.csv$/);
    const [header, ...rows] = lines(exported.csv);
    expect(header).toBe('\uFEFFLookup ID,Date,Identifier,Type,Status,Source,Credits,Source latency (ms),User,API key,Holders,Error code');
    const company = (await entries()).find((e) => e.inputIdentifier === DIR.company.cbu)!;
    const row = rows.find((r) => r.startsWith(company.id))!;
    const date = company.createdAt.slice(0, 19).replace('T', ' ');
    expect(row.startsWith(`${company.id},${date},${text(DIR.company.cbu)},CBU,Success,Desktop,1,`)).toBe(true);
    expect(row.endsWith(',ada@acme.test,,"Distribuidora Sur, S.R.L.",')).toBe(true);
  });

  it("writes times in the screen's time zone when it is given (the browser may not be where the core runs)", async () => {
    process.env.TZ = 'UTC';
    const exported = await value('history.exportCsv', { timeZone: 'Asia/Tokyo' });
    const entry = (await entries()).find((e) => e.inputIdentifier === DIR.company.cbu)!;
    const row = lines(exported.csv).find((r) => r.startsWith(entry.id))!;
    expect(row.split(';')[1]).toBe(fecha(entry.createdAt, 9));
    const { body } = await f.call('history.exportCsv', { timeZone: 'Mars/Olympus_Mons' });
    expect(body).toMatchObject({ ok: false, error: { code: 'INVALID_PARAMETER' } });
  });

  it('keeps its filters', async () => {
    const exported = await value('history.exportCsv', { status: 'ERROR', language: 'es' });
    const rows = lines(exported.csv).slice(1);
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row.split(';')[4]).toBe('Error');
  });

  it("credit reports: the subject's name under Titulares; Tipo is the API's inputType, CUIT, also for a CUIL", async () => {
    importCreditRecords(f);
    await value('lookup.creditReport', { tax_id: '30-71234567-1' });
    await value('lookup.creditReport', { tax_id: '27-31234567-1' });
    const exported = await value('history.exportCsv', { product: 'informes' });
    const rows = lines(exported.csv).slice(1).map((row) => row.split(';'));
    expect(rows.map((cells) => [cells[2], cells[3], cells[10]])).toEqual([
      ['27312345671', 'CUIT', 'María Laura González'],
      ['30712345671', 'CUIT', 'ACME Logística S.A.'],
    ]);
  });

  it('refuses a language it does not speak', async () => {
    const { body } = await f.call('history.exportCsv', { language: 'fr' });
    expect(body).toMatchObject({ ok: false, error: { code: 'INVALID_PARAMETER' } });
  });
});

describe('bulk.exportCsv', () => {
  it('says statuses and the core\'s messages in Spanish, quotes cells holding ";" and defuses formulas', async () => {
    const content = [
      DIR.individual.cbu,
      DIR.missing.cbu,
      breakCheckDigit(DIR.company.cbu),
      '=HYPERLINK("x";"y")',
      DIR.individual.cbu,
      DIR.joint.cbu,
    ].join('\n');
    const { job } = await value('bulk.create', { name: 'lista.txt', product: 'cbu', content });
    await value('bulk.start', { id: job.id });
    for (let i = 0; i < 200 && (await value('bulk.get', { id: job.id })).job.active; i++) await new Promise((r) => setTimeout(r, 25));

    const es = await value('bulk.exportCsv', { id: job.id });
    expect(es.fileName).toMatch(/^titular-lote-lista-\d{4}-\d{2}-\d{2}\.csv$/);
    const [header, ...rows] = lines(es.csv);
    expect(header).toBe('\uFEFFFila;Entrada;Identificador;Tipo;Estado;HTTP;Código;Mensaje;Créditos;Repite la fila;Titulares;CUIT/CUIL;Banco;ID de consulta');
    const first = rows[0]!.split(';');
    // The CBU (input and identifier) as text; the CUIT, 11 digits without a leading zero, as it is.
    expect(first.slice(0, 12)).toEqual(['1', text(DIR.individual.cbu), text(DIR.individual.cbu), 'CBU', 'Exitosa', '200', '', '', '1', '', 'Lucía Luna', DIR.individual.taxId]);
    expect(first[13]).toMatch(/^[0-9a-f-]{36}$/);
    expect(rows[1]).toContain(';Error;404;PA011;No encontramos ninguna cuenta para ese identificador.;1;;');
    expect(rows[2]).toContain(';Inválida;;;El dígito verificador del segundo bloque (dígito 22) del CBU no es válido.;0;;');
    // A formula is written as text, and a cell holding ";" is quoted.
    expect(rows[3]).toMatch(/^4;"'=HYPERLINK\(""x"";""y""\)";;;Inválida;/);
    expect(rows[4]).toMatch(/^5;.*;Exitosa;200;;;0;1;/);
    // Two holders are one cell, quoted because it holds the separator.
    expect(rows[5]).toContain(`;1;;"Pablo Ríos; Inés Ríos";"${DIR.joint.taxIdA}; ${DIR.joint.taxIdB}";`);

    const en = await value('bulk.exportCsv', { id: job.id, language: 'en' });
    expect(en.fileName).toMatch(/^titular-batch-lista-\d{4}-\d{2}-\d{2}\.csv$/);

    // A pasted list is named with the day and time it was pasted: its file says the day once, as
    // AAAA-MM-DD (rewritten in place), so the files sort by date.
    const today = new Date().toISOString().slice(0, 10);
    const [y, m, d] = today.split('-');
    const { job: pasted } = await value('bulk.create', { name: `Lista pegada ${d}/${m}/${y}, 08:39:12`, product: 'cbu', content: DIR.joint.cbu });
    expect((await value('bulk.exportCsv', { id: pasted.id, timeZone: 'UTC' })).fileName).toBe(`titular-lote-Lista-pegada-${today}-08-39-12.csv`);
    const { job: american } = await value('bulk.create', { name: `Pasted list ${m}/${d}/${y}, 8:39:12 AM`, product: 'cbu', content: DIR.company.cbu });
    expect((await value('bulk.exportCsv', { id: american.id, language: 'en', timeZone: 'UTC' })).fileName).toBe(`titular-batch-Pasted-list-${today}-8-39-12-AM.csv`);
    const enRows = lines(en.csv);
    expect(enRows[0]).toBe('\uFEFFRow,Input,Identifier,Type,Status,HTTP,Code,Message,Credits,Duplicate of row,Holders,Tax IDs,Bank,Lookup ID');
    expect(enRows[2]).toContain(',Error,404,PA011,No account was found for this identifier,1,,');
    expect(enRows[3]).toContain(',Invalid,,,CBU check digit of the second block (digit 22) is invalid,0,,');
  });

  it('quotes a cell holding the other language\'s separator: a spreadsheet splitting there finds no formula', async () => {
    // Excel set to es-AR splits any CSV at ";", an English one included; another setup splits a
    // Spanish file at ",". Unquoted, "x;=1+1" would put =1+1 in a cell of its own.
    // As a CSV (a first line with a separator must name its identifier column), the cells quoted.
    const content = ['identifier', '"x;=1+1"', '"y,=2+2"', '"z\t=3+3"'].join('\n');
    const { job } = await value('bulk.create', { name: 'separadores.txt', product: 'cbu', content });
    await value('bulk.start', { id: job.id });
    for (let i = 0; i < 200 && (await value('bulk.get', { id: job.id })).job.active; i++) await new Promise((r) => setTimeout(r, 25));
    for (const language of ['es', 'en'] as const) {
      const rows = lines((await value('bulk.exportCsv', { id: job.id, language })).csv).slice(1);
      const separator = language === 'es' ? ';' : ',';
      expect(rows.map((row) => csvCells(row, separator)[1])).toEqual(['x;=1+1', 'y,=2+2', 'z\t=3+3']);
      // Read at any of the separators a spreadsheet may split at, no cell starts a formula.
      for (const at of [';', ',', '\t']) for (const row of rows) for (const cell of csvCells(row, at)) expect(cell).not.toMatch(/^[=+@-]/);
    }
  });

  it("shows a control character an API client sent as U+FFFD: an escape sequence in a recorded identifier cannot act on the terminal a CSV is written to", async () => {
    const key = f.createKey({ name: 'terminal' });
    const sneaky = 'ab\u001b]0;PWNED\u0007\u001b[2Jcd\u009b1m';
    const res = await f.app.inject({ method: 'POST', url: '/api/v1/lookup', payload: { identifier: sneaky, type: 'alias' }, headers: { ...auth(key), host: '127.0.0.1' } });
    expect(res.statusCode).toBe(400);
    // The history keeps what was asked, as sent.
    expect((await entries())[0]!.inputIdentifier).toBe(sneaky);
    for (const language of ['es', 'en'] as const) {
      const csv = (await value('history.exportCsv', { language })).csv as string;
      expect(csv).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/);
      expect(csv).toContain('ab\ufffd]0;PWNED\ufffd\ufffd[2Jcd\ufffd1m');
    }
  });

  it('every export is in the audit trail: who took which lookups out, how many, with which filters (an operator\'s too)', async () => {
    const before = (await value('audit.list', { limit: 100 })).entries.length;
    const exported = await f.value('history.exportCsv', { language: 'es', status: 'ERROR', q: '  0000  ' }, f.operatorToken);
    const { job } = await f.value('bulk.create', { name: 'auditada.txt', product: 'cbu', content: DIR.company.cbu }, f.operatorToken);
    await f.value('bulk.start', { id: job.id }, f.operatorToken);
    for (let i = 0; i < 200 && (await f.value('bulk.get', { id: job.id }, f.operatorToken)).job.active; i++) await new Promise((r) => setTimeout(r, 25));
    await f.value('bulk.exportCsv', { id: job.id, language: 'en' }, f.operatorToken);
    const entries = (await value('audit.list', { limit: 100 })).entries;
    expect(entries).toHaveLength(before + 2);
    const [bulk, history] = entries;
    expect(history).toMatchObject({
      action: 'history.exported',
      targetType: 'history',
      details: { rows: exported.rows, product: 'cbu', environment: 'live', format: 'csv', filters: { status: 'ERROR', q: '0000' } },
      actor: { id: f.operatorId },
    });
    expect(bulk).toMatchObject({ action: 'bulk.exported', targetType: 'bulk_job', targetId: job.id, details: { name: 'auditada.txt', rows: 1 }, actor: { id: f.operatorId } });
  });
});
