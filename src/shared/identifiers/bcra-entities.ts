/**
 * BCRA financial-entity codes, as used in the first 3 digits of a CBU.
 *
 * Source: BCRA "Entidades financieras" registry,
 *   https://www.bcra.gob.ar/SistemasFinancierosYdePagos/Entidades_financieras.asp
 * Snapshot date: 2026-11-22. The table was compiled by hand on that date from
 * the codes and names published in that registry (cross-checked against
 * public CBU bank-code lists); it was NOT machine-downloaded, so entries are
 * limited to codes we are confident of. Entities merge, rename and lose their
 * licence over time: a code missing here is reported as "Entidad desconocida"
 * by analyzeCbu, which still accepts the CBU if its check digits pass.
 *
 * Entries marked "REVIEW" below are known to have changed ownership or name
 * recently and should be re-checked against the registry.
 */

/** Name shown for a CVU whose PSP prefix is not in {@link CVU_PSP}. */
export const UNKNOWN_PSP_NAME = 'Proveedor de Servicios de Pago (CVU)';

/** Entity code carried by every CVU (payment-service-provider account). */
export const CVU_ENTITY_CODE = '000';

const ENTITY_ENTRIES: ReadonlyArray<readonly [code: string, name: string]> = [
  ['007', 'Banco de Galicia y Buenos Aires S.A.'],
  ['011', 'Banco de la Nación Argentina'],
  ['014', 'Banco de la Provincia de Buenos Aires'],
  ['015', 'Industrial and Commercial Bank of China (Argentina) S.A.U.'],
  ['016', 'Citibank N.A.'],
  ['017', 'Banco BBVA Argentina S.A.'],
  ['020', 'Banco de la Provincia de Córdoba S.A.'],
  ['027', 'Banco Supervielle S.A.'],
  ['029', 'Banco de la Ciudad de Buenos Aires'],
  ['034', 'Banco Patagonia S.A.'],
  ['044', 'Banco Hipotecario S.A.'],
  ['045', 'Banco de San Juan S.A.'],
  ['065', 'Banco Municipal de Rosario'],
  ['072', 'Banco Santander Argentina S.A.'],
  ['083', 'Banco del Chubut S.A.'],
  ['086', 'Banco de Santa Cruz S.A.'],
  ['093', 'Banco de La Pampa Sociedad de Economía Mixta'],
  ['094', 'Banco de Corrientes S.A.'],
  ['097', 'Banco Provincia del Neuquén S.A.'],
  ['143', 'Brubank S.A.U.'],
  ['147', 'Banco Interfinanzas S.A.'],
  // REVIEW: acquired by Grupo Galicia (Dec 2024) and renamed "Banco GGAL S.A."
  // ahead of a merger into Galicia; the code may be retired in newer snapshots.
  ['150', 'HSBC Bank Argentina S.A.'],
  ['165', 'JPMorgan Chase Bank, National Association (Sucursal Buenos Aires)'],
  ['191', 'Banco Credicoop Cooperativo Limitado'],
  ['198', 'Banco de Valores S.A.'],
  ['247', 'Banco Roela S.A.'],
  ['254', 'Banco Mariva S.A.'],
  ['262', 'Bank of America, National Association'],
  ['266', 'BNP Paribas'],
  ['268', 'Banco Provincia de Tierra del Fuego'],
  ['269', 'Banco de la República Oriental del Uruguay'],
  ['277', 'Banco Sáenz S.A.'],
  ['281', 'Banco Meridian S.A.'],
  ['285', 'Banco Macro S.A.'],
  ['299', 'Banco Comafi S.A.'],
  ['300', 'Banco de Inversión y Comercio Exterior S.A.'],
  ['301', 'Banco Piano S.A.'],
  ['305', 'Banco Julio S.A.'],
  ['309', 'Banco Rioja S.A.U.'],
  ['310', 'Banco del Sol S.A.'],
  ['311', 'Nuevo Banco del Chaco S.A.'],
  ['312', 'Banco Voii S.A.'],
  ['315', 'Banco de Formosa S.A.'],
  ['319', 'Banco CMF S.A.'],
  ['321', 'Banco de Santiago del Estero S.A.'],
  ['322', 'Banco Industrial S.A.'],
  ['330', 'Nuevo Banco de Santa Fe S.A.'],
  ['331', 'Banco Cetelem Argentina S.A.'],
  ['332', 'Banco de Servicios Financieros S.A.'],
  ['336', 'Banco Bradesco Argentina S.A.U.'],
  ['338', 'Banco de Servicios y Transacciones S.A.'],
  ['339', 'RCI Banque S.A.'],
  ['340', 'BACS Banco de Crédito y Securitización S.A.'],
  ['341', 'Banco Masventas S.A.'],
  ['384', 'Wilobank S.A.'],
  ['386', 'Nuevo Banco de Entre Ríos S.A.'],
  ['389', 'Banco Columbia S.A.'],
  ['426', 'Banco Bica S.A.'],
  ['431', 'Banco Coinag S.A.'],
  ['432', 'Banco de Comercio S.A.'],
  ['435', 'Banco Sucrédito Regional S.A.U.'],
  // Formerly Finandino Compañía Financiera; same code after becoming a bank.
  ['448', 'Banco Dino S.A.'],
  ['515', 'Bank of China Limited Sucursal Buenos Aires'],
];

/** 3-digit BCRA entity code → official entity name. */
export const BCRA_ENTITIES: ReadonlyMap<string, string> = new Map(ENTITY_ENTRIES);

/**
 * 7-digit CVU prefix ("000" + 4-digit PSP id) → payment service provider.
 * Only PSPs whose prefix is widely observed in real CVUs are listed; the 8th
 * digit of a CVU is the block-1 check digit, so it is not part of the key.
 */
export const CVU_PSP: ReadonlyMap<string, string> = new Map([
  ['0000003', 'Mercado Pago'],
  ['0000007', 'Ualá'],
]);
