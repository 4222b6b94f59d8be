// The core answers in English (the API's language, and the CLI's). The Spanish screens, and the
// desktop's Spanish CSV exports, say those answers in Spanish: each message the desktop can meet is
// matched here and said again. A message not listed comes back as null, and is shown as it came
// (marked as English on screen).
//
// Kept beside the sentences they translate: src/main/core (users, keys, ledger, settings, bulk) and
// src/shared/identifiers (validation, whose Spanish also lives there as `messageEs` for the live
// checks of the Consulta screen; here it is matched from the English stored with a bulk row or a
// history entry).

type Rule = [pattern: RegExp, spanish: (...groups: string[]) => string];

const KEY_LIKE_LABELS_ES: Record<string, string> = {
  'The key name': 'El nombre de la clave',
  'The reference': 'La referencia',
  'The organization name': 'El nombre de la organización',
  "The user's name": 'El nombre del usuario',
  'The email': 'El email',
};

const RULES: readonly Rule[] = [
  // Users
  [/^A user with email (.+) already exists$/, (email) => `Ya existe un usuario con el email ${email}.`],
  [/^The organization needs at least one admin$/, () => 'La organización necesita al menos un administrador.'],
  [/^Not a valid email address: (.*)$/, (email) => `No es un email válido: ${email}`],
  [/^The user needs a name$/, () => 'El usuario necesita un nombre.'],
  [/^role must be admin or operator$/, () => 'El rol debe ser administrador u operador.'],
  // Labels that carry an API key (src/main/core/keys/secrets.ts, refuseKeyLike)
  [/^(The key name|The reference|The organization name|The user's name|The email) must not contain an API key$/, (what) => `${KEY_LIKE_LABELS_ES[what] ?? what} no puede contener una clave de API.`],
  // The vault (src/main/core/vault/passphrase-attempts.ts)
  [/^Wrong passphrase$/, () => 'La frase de acceso no es correcta.'],
  [/^Too many wrong passphrases; try again in (\d+) s$/, (seconds) => `Demasiadas frases de acceso incorrectas seguidas: probá de nuevo en ${seconds} s.`],
  // API keys
  [/^Not an IP address or CIDR range: (.*)$/, (value) => `No es una dirección IP ni un rango CIDR: ${value}`],
  [/^Not a valid CIDR prefix length: (.*)$/, (value) => `El largo de prefijo del rango CIDR no es válido: ${value}`],
  [/^rate limit must be a whole number of requests per second from 1 to 10000$/, () => 'El límite debe ser un número entero de solicitudes por segundo, de 1 a 10.000.'],
  [/^expiration must be a future date$/, () => 'El vencimiento tiene que ser una fecha futura.'],
  [/^expiresAt: not a valid ISO 8601 date$/, () => 'El vencimiento no es una fecha válida.'],
  [/^A key needs at least one scope/, () => 'Una clave necesita al menos un permiso: consulta, saldo o historial.'],
  [/^A revoked key cannot be rotated$/, () => 'Una clave revocada no se puede rotar.'],
  [/^The key owner is not a user of this organization$/, () => 'El titular de la clave no es un usuario de esta organización.'],
  // Credits
  [/^The reference "(.*)" was already used for a purchase of (\d+) credits$/, (reference, amount) => `La referencia “${reference}” ya se usó en una compra de ${Number(amount).toLocaleString('es-AR')} créditos.`],
  [/^amount must be a whole number from 1 to (\d+)$/, (max) => `La cantidad debe ser un número entero de 1 a ${Number(max).toLocaleString('es-AR')}.`],
  [/^reference must have at most 200 characters$/, () => 'La referencia puede tener hasta 200 caracteres.'],
  // Settings (remote source): each refusal of a base URL (src/main/core/resolvers/remote-config.ts,
  // remoteBaseUrlProblem), as the settings screen's save names its field ("remote.baseUrl: …") or
  // the remote source's last error states it. The loopback hosts are isLoopbackHost's.
  [/^(?:remote\.baseUrl: )?the base URL must not contain an API key$/, () => 'La URL base no puede contener una clave de API.'],
  [/^(?:remote\.baseUrl: )?the base URL is longer than (\d+) characters$/, (max) => `La URL base puede tener hasta ${Number(max).toLocaleString('es-AR')} caracteres.`],
  [/^(?:remote\.baseUrl: )?the base URL is not a valid URL/, () => 'La URL base no es una dirección válida: escribila completa, por ejemplo https://api.ejemplo.com.'],
  [/^(?:remote\.baseUrl: )?the base URL must start with https:\/\/ \(or http:\/\/ for this machine only: localhost, 127\.x\.x\.x or \[::1\]\)$/, () => 'La URL base tiene que empezar con https:// (http:// se acepta solo para esta computadora: localhost, 127.x.x.x o [::1]).'],
  [/^(?:remote\.baseUrl: )?the base URL must use https:\/\/ \(plain http:\/\/ is accepted only for/, () => 'La URL base tiene que empezar con https://, porque con http:// la clave de la API remota viajaría sin cifrar. Solo se acepta http:// para esta computadora (localhost, 127.x.x.x o [::1]).'],
  [/^(?:remote\.baseUrl: )?the base URL must not contain a user name or password$/, () => 'La URL base no puede incluir un usuario ni una contraseña.'],
  [/^(?:remote\.baseUrl: )?the base URL must not contain a query/, () => 'La URL base no puede incluir una consulta (?…) ni un fragmento (#…).'],
  [/^the timeout must be a whole number of milliseconds between 100 and 60000$/, () => 'El tiempo de espera debe ser un número entero de milisegundos entre 100 y 60.000.'],
  [/^no upstream key is set/, () => 'No hay una clave de la API remota configurada.'],
  // History
  [/^from must not be after to$/, () => 'La fecha “desde” no puede ser posterior a “hasta”.'],
  [/^More than (\d+) entries/, (max) => `Hay más de ${Number(max).toLocaleString('es-AR')} entradas: acotá las fechas, o usá titular history export.`],
  // Bulk jobs
  [/^The CSV has no "identifier" column: its first line is ("(?:[^"\\]|\\.)*")/, (line) => `El CSV no tiene una columna “identifier”: su primera línea es ${line}. Llamá “identifier” (o “identificador”, “cbu”, “alias”, “cuit”) a la columna de CBU, CVU o alias.`],
  [/^The input has no identifiers/, () => 'La lista no tiene identificadores: uno por línea, o un CSV con una columna “identifier”.'],
  [/^The input has more than ([\d,.]+) rows/, (max) => `La lista tiene más de ${max.replace(/,/g, '.')} filas: dividila en archivos más chicos.`],
  [/^Line (\d+): unterminated quoted field/, (line) => `Línea ${line}: una comilla (") nunca se cierra.`],
  [/^Malformed CSV row: field (\d+) has text after its closing quote$/, (field) => `Fila CSV mal formada: la celda ${field} sigue después de su comilla de cierre.`],
  [/^Bulk job \S+ is already running$/, () => 'Ese lote ya se está ejecutando.'],
  [/^Bulk job \S+ is (\w+)/, (status) => `Ese lote está ${BULK_STATUS[status] ?? status} y no se puede ejecutar de nuevo.`],
  [/^The identifier is empty$/, () => 'El identificador está vacío.'],
  [/^type must be cuit or cuil in a credit report job \(got "([\s\S]*)"\)$/, (got) => `En un lote de informes el tipo debe ser cuit o cuil (se indicó “${got}”).`],
  [/^A CUIT\/CUIL is looked up in a credit report \(Informes\) job$/, () => 'Un CUIT/CUIL se consulta en un lote de informes crediticios.'],
  [/^type must be cbu, cvu or alias \(got "([\s\S]*)"\)$/, (got) => `El tipo debe ser cbu, cvu o alias (se indicó “${got}”).`],
  // Identifier validation (src/shared/identifiers; the API's own wording for its 400 PA006)
  [/^CBU must be exactly 22 digits, without spaces, dashes or other characters$/, () => 'El CBU debe tener exactamente 22 dígitos, sin espacios, guiones ni otros caracteres.'],
  [/^CBU must contain only digits/, () => 'El CBU solo puede contener dígitos.'],
  [/^CBU must be 22 digits with valid check digits \(got (\d+) digits?\)$/, (n) => `El CBU debe tener 22 dígitos con dígitos verificadores válidos (se ingresaron ${n}).`],
  [/^(CBU|CVU) check digit of the first block \(digit 8\) is invalid$/, (scheme) => `El dígito verificador del primer bloque (dígito 8) del ${scheme} no es válido.`],
  [/^(CBU|CVU) check digit of the second block \(digit 22\) is invalid$/, (scheme) => `El dígito verificador del segundo bloque (dígito 22) del ${scheme} no es válido.`],
  [/^Alias may only contain letters/, () => 'El alias solo puede contener letras (a-z, sin tildes ni ñ), números y puntos.'],
  [/^Alias must be between 6 and 20 characters \(got (\d+)\)$/, (n) => `El alias debe tener entre 6 y 20 caracteres (se ingresaron ${n}).`],
  [/^CUIT\/CUIL must contain only digits/, () => 'El CUIT/CUIL solo puede contener dígitos.'],
  [/^CUIT\/CUIL must be 11 digits \(got (\d+)\)$/, (n) => `El CUIT/CUIL debe tener 11 dígitos (se ingresaron ${n}).`],
  [/^CUIT\/CUIL prefix (\d+) is not valid/, (prefix) => `El prefijo ${prefix} del CUIT/CUIL no es válido (se esperaba 20, 23, 24, 25, 26, 27, 30, 33 o 34).`],
  [/^CUIT\/CUIL check digit is invalid$/, () => 'El dígito verificador del CUIT/CUIL no es válido.'],
  [/^identifier is required/, () => 'Falta el identificador (un CBU/CVU o un alias).'],
  [/^type (is required|must be cbu or alias)/, () => 'El tipo debe ser cbu o alias.'],
  [/^tax_id is required/, () => 'Falta el CUIT/CUIL (11 dígitos).'],
  // Backups made from Ajustes (src/main/core/backup/backup.ts, src/main/core/folders.ts). The folder is
  // the app's own there, so the English advice to choose another one is not repeated.
  [/^There is not enough free space for the backup in (.+): the database takes about (.+?); free some space there, or back up to another disk$/, (folder, size) => `No hay espacio libre suficiente para la copia de seguridad en ${folder}: la base de datos ocupa unos ${size.replace('.', ',')}. Liberá espacio en ese disco.`],
  [/^The backup folder (.+) cannot be created \((.+)\)(?:; .*)?$/, (folder, reason) => `No se pudo crear la carpeta de la copia de seguridad ${folder} (${FOLDER_REASON[reason] ?? reason}).`],
  [/^The backup folder (.+?) cannot be created: (.+) (is a file, not a folder|is not a folder|is a link to nothing, not a folder)(?:; .*)?$/, (folder, inTheWay, what) => `No se pudo crear la carpeta de la copia de seguridad ${folder}: ${inTheWay} ${FOLDER_PROBLEM[what] ?? what}.`],
  [/^The backup folder (.+) cannot be written to \((.+)\)(?:; .*)?$/, (folder, reason) => `No se puede escribir en la carpeta de la copia de seguridad ${folder} (${FOLDER_REASON[reason] ?? reason}); elegí otra carpeta.`],
  [/^The backup folder (.+) (is a file, not a folder|is not a folder|is a link to nothing, not a folder)(?:; .*)?$/, (folder, what) => `La carpeta de la copia de seguridad ${folder} ${FOLDER_PROBLEM[what] ?? what}.`],
  // Lookup outcomes (src/main/core/lookup/lookup-record.ts), as a bulk row's export states them
  [/^No account was found for this identifier$/, () => 'No encontramos ninguna cuenta para ese identificador.'],
  [/^No credit report was found for this CUIT\/CUIL$/, () => 'No encontramos un informe para ese CUIT/CUIL.'],
  [/^The (account data|credit report) source is unavailable: Titular's key vault is locked/, () => 'Las consultas a la API remota esperan a que un administrador desbloquee la bóveda de claves.'],
  [/^The (account data|credit report) source is unavailable: the remote API Titular is set to use is not set up/, () =>
    'Las consultas van a una API remota que no está configurada (falta su dirección o su clave): un administrador la configura en Ajustes o con `titular remote set`.'],
  [/^The (account data|credit report) source is unavailable/, () => 'El servicio de datos no está disponible; probá de nuevo en unos minutos.'],
  [/^Internal error$/, () => 'Error interno.'],
  // A record a lookup answers from, damaged in the database (src/main/core/directory, stored-json.ts)
  [/^The directory's record of this account cannot be read \(it is damaged in Titular's database\); import the directory again$/, () =>
    'El registro de esta cuenta en el directorio no se puede leer (está dañado en la base de datos de Titular): importá el directorio de nuevo. No se cobró la consulta.'],
  [/^The stored credit report for this CUIT\/CUIL cannot be read \(it is damaged in Titular's database\); import the credit records again$/, () =>
    'El informe guardado de este CUIT/CUIL no se puede leer (está dañado en la base de datos de Titular): importá los informes de nuevo. No se cobró la consulta.'],
  // The vault's scrypt parameters, damaged (src/main/core/vault/passphrase-provider.ts): the unlock screen
  [/^The vault's key-derivation parameters are damaged in Titular's database/, () =>
    'Los parámetros de la frase de acceso de la bóveda están dañados en la base de datos de Titular: ninguna frase puede desbloquearla. Restaurá una copia de seguridad (titular restore).'],
  // A full disk (src/main/core/db/disk-full.ts): at the desktop's start (its error box), as a bulk job's last error
  [/^the disk did not confirm a write to (.+) \((.+)\): Titular stopped\./, (folder, code) => `El disco no confirmó una escritura en ${folder} (${code}): Titular se detuvo. Las consultas que esperaban no se respondieron y no se registró nada después. Revisá el disco y volvé a abrir Titular; una consulta que quedó sin respuesta puede o no estar registrada: reenviala con su Idempotency-Key.`],
  [/^Titular's database is busy: another Titular process holds it/, () => 'La base de datos de Titular está ocupada: otro proceso de Titular la tiene tomada. No se registró ni se cobró nada; probá de nuevo en unos segundos.'],
  [/^Titular's data files were deleted, replaced or made unreachable while it ran \((.+?)\): /, (file) => `Los archivos de datos de Titular se borraron, reemplazaron o dejaron de estar accesibles mientras funcionaba (${file}): no se registra ni se cobra nada más. Cerrá Titular, revisá su carpeta de datos (restaurá una copia de seguridad si ya no está) y volvé a abrirlo.`],
  [/^The disk holding (.+) is full: Titular cannot open its data there/, (folder) => `El disco donde está ${folder} está lleno: Titular no puede abrir sus datos. Liberá espacio en ese disco y volvé a intentar.`],
  [/^The disk holding Titular's data is full/, () => 'El disco donde Titular guarda sus datos está lleno. Lo que falló no se registró ni se cobró: liberá espacio y volvé a intentar.'],
  // Files of the data directory Titular cannot use (src/main/core/db/storage-errors.ts, access-problem.ts): the start-up box
  [/^(The data directory |The vault's key file )?(.+?) cannot be (read|written|written to) by user (.+?) \(owner (.+?), mode (\d+)\): run Titular as the owner of its data directory, or give the folder to .+? \(chown -R (.+)\)$/, (label, file, verb, user, owner, mode, chown) =>
    `${ACCESS_LABEL[label ?? ''] ?? ''}${file} no se puede ${verb === 'read' ? 'leer' : 'escribir'} con el usuario ${user} (su dueño es ${owner}, permisos ${mode}). Abrí Titular con el usuario dueño de su carpeta de datos, o dale la carpeta a ${user} (chown -R ${chown}).`],
  [/^(The data directory |The vault's key file )?(.+?) cannot be (read|written|written to) by the user running Titular \(permission denied\): give that user the data directory (.+)$/, (label, file, verb, dataDir) =>
    `${ACCESS_LABEL[label ?? ''] ?? ''}${file} no se puede ${verb === 'read' ? 'leer' : 'escribir'} con el usuario que abre Titular (permiso denegado): dale a ese usuario la carpeta de datos ${dataDir}.`],
  [/^(The data directory |The vault's key file )?(.+?) is on a read-only disk, and Titular writes there/, (label, file) =>
    `${ACCESS_LABEL[label ?? ''] ?? ''}${file} está en un disco de solo lectura, y Titular escribe ahí cada consulta que registra. Hacé que ese disco se pueda escribir, o copiá la carpeta a otro disco y abrila ahí (TITULAR_DATA_DIR).`],
  [/^Titular cannot write its database in (.+) \((.+)\): check that the user running Titular owns that folder/, (dataDir, reason) =>
    `Titular no puede escribir su base de datos en ${dataDir} (${reason}): revisá que el usuario que abre Titular sea dueño de esa carpeta y de sus archivos, y que su disco se pueda escribir.`],
  [/^The database in (.+) is damaged \((.+)\): restore your latest backup/, (dataDir, reason) =>
    `La base de datos de ${dataDir} está dañada (${reason}). Restaurá tu última copia de seguridad con \`titular restore CARPETA --data-dir ${dataDir}\`, con Titular cerrado (los archivos dañados se guardan aparte, no se borran).`],
  // The first-run screen's setup refused beside an earlier setup's key file (src/main/core/startup/startup-gate.ts):
  // met when the folder changed after the screen read it, which then shows its warning.
  [/^(.+) holds the key file of an earlier setup \(master\.key\) but (?:no|an empty) database .*To set up a new organization here anyway, confirm that you start a new one/, (dataDir) =>
    `${dataDir} tiene el archivo de clave de una instalación anterior (master.key), pero no su base de datos: si Titular tenía datos acá, restaurá tu última copia de seguridad con \`titular restore CARPETA --data-dir ${dataDir}\`, con Titular cerrado. Para crear igual una organización nueva, confirmalo en esta pantalla. No se cambió nada.`],
];

const ACCESS_LABEL: Record<string, string> = {
  'The data directory ': 'La carpeta de datos ',
  "The vault's key file ": 'El archivo de clave de la bóveda ',
};

const FOLDER_REASON: Record<string, string> = {
  'permission denied': 'permiso denegado',
  'read-only file system': 'el disco es de solo lectura',
};

const FOLDER_PROBLEM: Record<string, string> = {
  'is a file, not a folder': 'es un archivo, no una carpeta',
  'is not a folder': 'no es una carpeta',
  'is a link to nothing, not a folder': 'es un enlace a nada, no una carpeta',
};

const BULK_STATUS: Record<string, string> = {
  completed: 'completo',
  cancelled: 'cancelado',
  running: 'en curso',
  paused: 'en pausa',
  pending: 'pendiente',
  out_of_credits: 'sin créditos',
};

/** The Spanish of a message of the core, or null when it is not one this table knows. */
export function serverMessageInSpanish(message: string): string | null {
  for (const [pattern, spanish] of RULES) {
    const match = pattern.exec(message);
    if (match) return spanish(...match.slice(1));
  }
  return null;
}
