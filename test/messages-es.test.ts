// The Spanish screens say the core's English answers in Spanish (src/shared/messages-es.ts).
// The messages are produced here by the core itself, so a reworded message that the table no
// longer matches fails this test instead of reaching a Spanish screen in English.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { serverMessageInSpanish } from '../src/shared/messages-es';
import { peekDataDir } from '../src/main/core/startup/peek-data-dir';
import { StartupGate } from '../src/main/core/startup/startup-gate';
import { TitularError } from '../src/main/core/errors';
import { diskFullAtOpen, diskFullError } from '../src/main/core/db/disk-full';
import { dataFilesMovedError } from '../src/main/core/db/data-files-guard';
import { databaseBusyError } from '../src/main/core/db/database-busy';
import { durabilityLostMessage } from '../src/main/core/titular';
import { parseBulkInput } from '../src/main/core/bulk/bulk-input';
import { failed, found } from '../src/main/core/lookup/lookup-record';
import { REMOTE_NOT_SET_UP, UpstreamError } from '../src/main/core/resolvers/resolver';
import { DamagedRecordError } from '../src/main/core/db/stored-json';
import { DAMAGED_ACCOUNT_MESSAGE } from '../src/main/core/directory/directory';
import { DAMAGED_REPORT_MESSAGE } from '../src/main/core/directory/credit-reports';
import { DAMAGED_KDF_MESSAGE } from '../src/main/core/vault/passphrase-provider';
import { PassphraseAttempts } from '../src/main/core/vault/passphrase-attempts';
import { analyzeAlias, analyzeCbu, analyzeTaxId } from '../src/shared/identifiers';
import { updateSettings } from '../src/main/core/ipc/settings-handlers';
import { configureRemote } from '../src/main/core/resolvers/remote-config';
import { createFixture, type Fixture } from './support/fixture';
import { breakCheckDigit, DIR } from './support/directory-data';

let f: Fixture;
beforeEach(async () => {
  f = await createFixture();
});
afterEach(async () => {
  await f.close();
});

/** The message of what `run` throws (a TitularError of the core). */
function messageOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(TitularError);
    return (error as TitularError).message;
  }
  throw new Error('expected the core to refuse');
}

describe('the core\'s messages, in Spanish', () => {
  it('users, keys, credits: each refusal the desktop can meet has its Spanish', () => {
    const { titular, orgId, adminId } = f;
    const key = (input: object) => () => titular.keys.create({ orgId, ownerUserId: adminId, actorUserId: adminId, product: 'cbu', scopes: ['lookup'], environment: 'live', ...input });
    const cases: [string, string][] = [
      [messageOf(() => titular.users.add(orgId, { name: 'Ada Otra', email: 'ada@acme.test', role: 'operator' }, adminId)), 'Ya existe un usuario con el email ada@acme.test.'],
      [messageOf(() => titular.users.add(orgId, { name: 'Sin Arroba', email: 'bad', role: 'operator' }, adminId)), 'No es un email válido: bad'],
      [messageOf(key({ ipWhitelist: ['999.1.1.1'] })), 'No es una dirección IP ni un rango CIDR: 999.1.1.1'],
      [messageOf(key({ rateLimitPerSecond: 100_000 })), 'El límite debe ser un número entero de solicitudes por segundo, de 1 a 10.000.'],
      [messageOf(key({ expiresAt: Date.now() - 1000 })), 'El vencimiento tiene que ser una fecha futura.'],
      [messageOf(key({ scopes: [] })), 'Una clave necesita al menos un permiso: consulta, saldo o historial.'],
      [messageOf(() => titular.ledger.addPurchase({ orgId, product: 'cbu', amount: 0, userId: adminId })), 'La cantidad debe ser un número entero de 1 a 100.000.000.'],
    ];
    // A label carrying an API key is refused (it would be stored and shown in plaintext).
    const pasted = `pegada ${titular.keys.create({ orgId, ownerUserId: adminId, actorUserId: adminId, product: 'cbu', scopes: ['lookup'], environment: 'live' }).secret}`;
    cases.push(
      [messageOf(key({ name: pasted })), 'El nombre de la clave no puede contener una clave de API.'],
      [messageOf(() => titular.ledger.addPurchase({ orgId, product: 'cbu', amount: 5, reference: pasted, userId: adminId })), 'La referencia no puede contener una clave de API.'],
      [messageOf(() => titular.users.add(orgId, { name: pasted, email: 'nueva@acme.test', role: 'operator' }, adminId)), 'El nombre del usuario no puede contener una clave de API.'],
      [messageOf(() => titular.users.add(orgId, { name: 'Nueva', email: `${pasted.replace(' ', '')}@acme.test`, role: 'operator' }, adminId)), 'El email no puede contener una clave de API.'],
    );
    titular.ledger.addPurchase({ orgId, product: 'cbu', amount: 10, reference: 'FAC-2', userId: adminId });
    cases.push([messageOf(() => titular.ledger.addPurchase({ orgId, product: 'cbu', amount: 20, reference: 'FAC-2', userId: adminId })), 'La referencia “FAC-2” ya se usó en una compra de 10 créditos.']);
    for (const [english, spanish] of cases) expect(serverMessageInSpanish(english), english).toBe(spanish);
  });

  it('the vault\'s refusals of a typed passphrase', async () => {
    const attempts = new PassphraseAttempts();
    const refusal = async (passphrase: string) => {
      try {
        await attempts.verify(f.titular.db, passphrase, () => false);
      } catch (error) {
        return (error as TitularError).message;
      }
      throw new Error('expected a refusal');
    };
    const messages = [await refusal('corta'), await refusal('una frase incorrecta'), await refusal('otra frase incorrecta'), await refusal('y otra más')];
    expect(messages.map((m) => serverMessageInSpanish(m))).toEqual([
      'La frase de acceso no es correcta.',
      'La frase de acceso no es correcta.',
      'La frase de acceso no es correcta.',
      'Demasiadas frases de acceso incorrectas seguidas: probá de nuevo en 1 s.',
    ]);
  });

  it('every reason a bulk row or a lookup is invalid', () => {
    const input = parseBulkInput(
      ['identifier,type', `${breakCheckDigit(DIR.individual.cbu)},cbu`, '123,cbu', 'ab,alias', 'con-guion.x,alias', `${DIR.individual.cbu},iban`, '20123456786,cuit', ',cbu', '"x"y,cbu', `${DIR.individual.cbu},"ib\nan"`].join('\n'),
      'cbu',
    );
    const reasons = input.rows.map((r) => r.invalid!);
    expect(reasons).toHaveLength(9);
    // A quoted type cell may hold a line break; the reason quotes it, and still has its Spanish.
    expect(reasons[8]).toBe('type must be cbu, cvu or alias (got "ib\nan")');
    for (const reason of reasons) expect(serverMessageInSpanish(reason), reason).not.toBeNull();
    for (const analysis of [analyzeCbu('12a'), analyzeCbu('1'), analyzeTaxId('123'), analyzeTaxId('99123456780'), analyzeTaxId('20123456780'), analyzeAlias('ñandu.pay')]) {
      expect(analysis.ok).toBe(false);
      if (analysis.ok) continue;
      expect(serverMessageInSpanish(analysis.message), analysis.message).not.toBeNull();
    }
  });

  it('every way a lookup can end without data', () => {
    const started = performance.now();
    const outcomes = [
      found('cbu', { found: false }, started),
      found('informes', { found: false }, started),
      failed(new UpstreamError('down', 30), started, 'cbu'),
      failed(new UpstreamError('down', 30), started, 'informes'),
      failed(new UpstreamError('no key', 60, REMOTE_NOT_SET_UP), started, 'cbu'),
      failed(new Error('boom'), started, 'cbu'),
      failed(new DamagedRecordError(DAMAGED_ACCOUNT_MESSAGE, 'id'), started, 'cbu'),
      failed(new DamagedRecordError(DAMAGED_REPORT_MESSAGE, 'id'), started, 'informes'),
    ];
    const spanish = outcomes.map((o) => ('message' in o ? serverMessageInSpanish(o.message) : 'no message'));
    expect(spanish).toEqual([
      'No encontramos ninguna cuenta para ese identificador.',
      'No encontramos un informe para ese CUIT/CUIL.',
      'El servicio de datos no está disponible; probá de nuevo en unos minutos.',
      'El servicio de datos no está disponible; probá de nuevo en unos minutos.',
      'Las consultas van a una API remota que no está configurada (falta su dirección o su clave): un administrador la configura en Ajustes o con `titular remote set`.',
      'Error interno.',
      'El registro de esta cuenta en el directorio no se puede leer (está dañado en la base de datos de Titular): importá el directorio de nuevo. No se cobró la consulta.',
      'El informe guardado de este CUIT/CUIL no se puede leer (está dañado en la base de datos de Titular): importá los informes de nuevo. No se cobró la consulta.',
    ]);
  });

  it("a passphrase vault whose scrypt parameters are damaged, as the unlock screen says it", () => {
    expect(serverMessageInSpanish(DAMAGED_KDF_MESSAGE)).toBe(
      'Los parámetros de la frase de acceso de la bóveda están dañados en la base de datos de Titular: ninguna frase puede desbloquearla. Restaurá una copia de seguridad (titular restore).',
    );
  });

  it('a full disk, as a bulk job\'s last error and the desktop\'s start-up box say it', () => {
    expect(serverMessageInSpanish(diskFullError().message)).toBe('El disco donde Titular guarda sus datos está lleno. Lo que falló no se registró ni se cobró: liberá espacio y volvé a intentar.');
    expect(serverMessageInSpanish(durabilityLostMessage(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }), '/datos'))).toBe(
      'El disco no confirmó una escritura en /datos (EIO): Titular se detuvo. Las consultas que esperaban no se respondieron y no se registró nada después. Revisá el disco y volvé a abrir Titular; una consulta que quedó sin respuesta puede o no estar registrada: reenviala con su Idempotency-Key.',
    );
    expect(serverMessageInSpanish(databaseBusyError().message)).toBe('La base de datos de Titular está ocupada: otro proceso de Titular la tiene tomada. No se registró ni se cobró nada; probá de nuevo en unos segundos.');
    expect(serverMessageInSpanish(dataFilesMovedError('/datos/titular.db').message)).toBe(
      'Los archivos de datos de Titular se borraron, reemplazaron o dejaron de estar accesibles mientras funcionaba (/datos/titular.db): no se registra ni se cobra nada más. Cerrá Titular, revisá su carpeta de datos (restaurá una copia de seguridad si ya no está) y volvé a abrirlo.',
    );
    expect(serverMessageInSpanish(diskFullAtOpen('/home/ana/.local/share/titular').message)).toBe(
      'El disco donde está /home/ana/.local/share/titular está lleno: Titular no puede abrir sus datos. Liberá espacio en ese disco y volvé a intentar.',
    );
  });

  it('a damaged database, as the desktop\'s start-up box says it', () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'titular-damaged-'));
    try {
      writeFileSync(path.join(dataDir, 'titular.db'), 'not a database, but long enough to be read as one'.repeat(4));
      expect(serverMessageInSpanish(messageOf(() => peekDataDir(dataDir)))).toBe(
        `La base de datos de ${dataDir} está dañada (file is not a database). Restaurá tu última copia de seguridad con \`titular restore CARPETA --data-dir ${dataDir}\`, con Titular cerrado (los archivos dañados se guardan aparte, no se borran).`,
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('a first run beside an earlier setup\'s key file, as the setup screen meets it', () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'titular-earlier-'));
    try {
      writeFileSync(path.join(dataDir, 'master.key'), 'x');
      const gate = new StartupGate({ dataDir, automaticProvider: () => null, newVaultProvider: () => null });
      const refused = messageOf(() => gate.setup({ organization: 'Otra SA', adminName: 'Otra Admin', adminEmail: 'otra@otra.test', passphrase: 'una frase larga' }));
      expect(serverMessageInSpanish(refused)).toBe(
        `${dataDir} tiene el archivo de clave de una instalación anterior (master.key), pero no su base de datos: si Titular tenía datos acá, restaurá tu última copia de seguridad con \`titular restore CARPETA --data-dir ${dataDir}\`, con Titular cerrado. Para crear igual una organización nueva, confirmalo en esta pantalla. No se cambió nada.`,
      );
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('each refusal of the remote API\'s base URL, as the settings screen meets it, says what is allowed', async () => {
    const { titular, orgId, adminId } = f;
    const admin = titular.users.get(orgId, adminId)!;
    const save = async (baseUrl: string) => {
      const refusal = await updateSettings(titular, admin, { remote: { baseUrl } }, {}).then(() => null, (error: unknown) => error);
      expect(refusal).toBeInstanceOf(TitularError);
      return (refusal as TitularError).message;
    };
    const key = titular.keys.create({ orgId, ownerUserId: adminId, actorUserId: adminId, product: 'cbu', scopes: ['lookup'], environment: 'live' }).secret;
    const cases: [string, string][] = [
      [await save(`https://api.example.com/${key}`), 'La URL base no puede contener una clave de API.'],
      [await save(`https://api.example.com/${'a'.repeat(500)}`), 'La URL base puede tener hasta 500 caracteres.'],
      [await save('api.example.com'), 'La URL base no es una dirección válida: escribila completa, por ejemplo https://api.ejemplo.com.'],
      [await save('ftp://api.example.com'), 'La URL base tiene que empezar con https:// (http:// se acepta solo para esta computadora: localhost, 127.x.x.x o [::1]).'],
      [await save('http://api.example.com'), 'La URL base tiene que empezar con https://, porque con http:// la clave de la API remota viajaría sin cifrar. Solo se acepta http:// para esta computadora (localhost, 127.x.x.x o [::1]).'],
      [await save('https://ada:secreta@api.example.com'), 'La URL base no puede incluir un usuario ni una contraseña.'],
      [await save('https://api.example.com/?cuenta=1'), 'La URL base no puede incluir una consulta (?…) ni un fragmento (#…).'],
    ];
    // The screen names the field; the same sentences without it (the CLI's, a remote source's last error) too.
    for (const [english, spanish] of cases) {
      expect(english).toMatch(/^remote\.baseUrl: the base URL /);
      expect(serverMessageInSpanish(english), english).toBe(spanish);
      expect(serverMessageInSpanish(english.replace(/^remote\.baseUrl: /, '')), english).toBe(spanish);
    }
    // The loopback hosts both languages name are the ones plain http:// is accepted for.
    expect(await save('http://api.example.com')).toContain('this machine: localhost, 127.x.x.x or [::1]');
    for (const url of ['http://localhost:8080', 'http://127.0.0.1:8080', 'http://127.1.2.3', 'http://[::1]:8080']) {
      await expect(updateSettings(titular, admin, { remote: { baseUrl: url } }, {}), url).resolves.toBeDefined();
    }
    expect(serverMessageInSpanish(messageOf(() => configureRemote(titular, { orgId, actorUserId: adminId }, { timeoutMs: 50 })))).toBe(
      'El tiempo de espera debe ser un número entero de milisegundos entre 100 y 60.000.',
    );
  });

  it('an unknown message is not guessed at', () => {
    expect(serverMessageInSpanish('Something nobody wrote a translation for')).toBeNull();
  });
});
