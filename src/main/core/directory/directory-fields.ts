// Field rules of directory files (directory-file.ts), shared by the CSV and JSON readers. Each
// parser returns undefined when the value is invalid, after pushing a message to `problems`, so one
// row can report all its bad fields at once.
import type { Holder, LookupData } from '../../../shared/api/lookup';
import { analyzeAlias, analyzeCbu } from '../../../shared/identifiers';
import { BOOLEANS, WHITESPACE_RUN, characterCount, enumKey, parseTaxId, show } from './field-rules';

export const MAX_HOLDER_NAME_LENGTH = 200;

type AccountType = LookupData['account_type'];
type Currency = LookupData['currency'];
type Scheme = LookupData['account']['scheme'];
export type TaxIdType = Holder['tax_id_type'];

// Compiled once: these run for every row of files with up to 200,000 rows.
const SCIENTIFIC_NOTATION = /^\d(?:[.,]\d+)?e\+?\d+$/i;

const ACCOUNT_TYPES: ReadonlyMap<string, AccountType> = new Map<string, AccountType>([
  ['cc', 'CC'],
  ['ca', 'CA'],
  ['virtual', 'VIRTUAL'],
  // Spanish names, as bank exports and people write them.
  ['cuenta corriente', 'CC'],
  ['caja de ahorro', 'CA'],
  ['caja de ahorros', 'CA'],
]);

const CURRENCIES: ReadonlyMap<string, Currency> = new Map<string, Currency>([
  ['ars', 'ARS'],
  ['$', 'ARS'],
  ['usd', 'USD'],
  ['u$s', 'USD'],
  ['us$', 'USD'],
]);

interface ParsedCbu {
  number: string;
  scheme: Scheme;
  bank: { name: string; code: string };
}

function parseCbu(raw: string, problems: string[]): ParsedCbu | undefined {
  const value = raw.trim();
  if (value === '') {
    problems.push('cbu is required');
    return undefined;
  }
  // Excel turns a 22-digit column into "2.85059E+21" unless it is formatted as text; the digits are lost.
  if (SCIENTIFIC_NOTATION.test(value)) {
    problems.push(`cbu ${show(value)} was converted to a number in scientific notation (format the column as text)`);
    return undefined;
  }
  const analysis = analyzeCbu(value);
  if (!analysis.ok) {
    problems.push(`cbu: ${analysis.message}`);
    return undefined;
  }
  return { number: analysis.number, scheme: analysis.scheme, bank: { name: analysis.bank.name, code: analysis.bank.code } };
}

interface ParsedAlias {
  alias: string;
  key: string | null;
}

const NO_ALIAS: ParsedAlias = { alias: '', key: null };

function parseAlias(raw: string, problems: string[]): ParsedAlias | undefined {
  if (raw.trim() === '') return NO_ALIAS;
  const analysis = analyzeAlias(raw);
  if (!analysis.ok) {
    problems.push(`alias: ${analysis.message}`);
    return undefined;
  }
  return { alias: analysis.alias, key: analysis.key };
}

/** `scheme` is null when the cbu itself was invalid: then an empty type is not reported twice. */
function parseAccountType(raw: string, scheme: Scheme | null, problems: string[]): AccountType | undefined {
  const key = enumKey(raw);
  if (key === '') {
    // A CVU can only be a virtual account; a CBU can be either kind, so the file must say.
    if (scheme === 'CVU') return 'VIRTUAL';
    if (scheme === 'CBU') problems.push('account_type is required for a CBU');
    return undefined;
  }
  const type = ACCOUNT_TYPES.get(key);
  if (type === undefined) {
    problems.push(`account_type ${show(raw)} is not valid (expected CC, CA or VIRTUAL)`);
  }
  return type;
}

function parseCurrency(raw: string, problems: string[]): Currency | undefined {
  const key = enumKey(raw);
  if (key === '') return 'ARS';
  const currency = CURRENCIES.get(key);
  if (currency === undefined) problems.push(`currency ${show(raw)} is not valid (expected ARS or USD)`);
  return currency;
}

function parseActive(raw: string | boolean, problems: string[]): boolean | undefined {
  if (typeof raw === 'boolean') return raw;
  const key = enumKey(raw);
  if (key === '') return true;
  const active = BOOLEANS.get(key);
  if (active === undefined) problems.push(`active ${show(raw)} is not valid (expected true/false, yes/no, sí/no or 1/0)`);
  return active;
}

function parseHolderName(raw: string, label: string, problems: string[]): string | undefined {
  // Multi-line spreadsheet cells and double spaces are layout, not part of the name.
  const name = raw.replace(WHITESPACE_RUN, ' ').trim();
  if (name === '') {
    problems.push(`${label} is required`);
    return undefined;
  }
  if (name.length > MAX_HOLDER_NAME_LENGTH) {
    const count = characterCount(name);
    if (count > MAX_HOLDER_NAME_LENGTH) {
      problems.push(`${label} is too long (${count} characters, at most ${MAX_HOLDER_NAME_LENGTH})`);
      return undefined;
    }
  }
  return name;
}

/** Account-level values of one row or item, already validated and normalized. */
export interface AccountFields {
  cbu: ParsedCbu;
  alias: ParsedAlias;
  accountType: AccountType;
  currency: Currency;
  active: boolean;
}

/** `undefined` for cbu/active means the JSON layer already reported a wrong type. */
interface AccountInput {
  cbu: string | undefined;
  alias: string;
  accountType: string;
  currency: string;
  active: string | boolean | undefined;
}

export function parseAccountFields(input: AccountInput, problems: string[]): AccountFields | undefined {
  const cbu = input.cbu === undefined ? undefined : parseCbu(input.cbu, problems);
  const alias = parseAlias(input.alias, problems);
  const accountType = parseAccountType(input.accountType, cbu?.scheme ?? null, problems);
  const currency = parseCurrency(input.currency, problems);
  const active = input.active === undefined ? undefined : parseActive(input.active, problems);
  if (!cbu || !alias || !accountType || !currency || active === undefined) return undefined;
  return { cbu, alias, accountType, currency, active };
}

interface HolderInput {
  name: string;
  taxId: string;
  /** JSON only: explicit values that replace the ones derived from the tax id. */
  taxIdType?: TaxIdType;
  isIndividual?: boolean;
}

/** A validated holder plus what the duplicate check needs to word its message. */
export interface HolderEntry {
  holder: Holder;
  taxIdLabel: string;
  formatted: string;
}

export function parseHolder(
  input: HolderInput,
  labels: { name: string; taxId: string },
  problems: string[],
): HolderEntry | undefined {
  const name = parseHolderName(input.name, labels.name, problems);
  const taxId = parseTaxId(input.taxId, labels.taxId, problems);
  if (name === undefined || taxId === undefined) return undefined;
  return {
    holder: {
      full_name: name,
      tax_id: taxId.taxId,
      tax_id_type: input.taxIdType ?? taxId.type,
      is_individual: input.isIndividual ?? taxId.isIndividual,
    },
    taxIdLabel: labels.taxId,
    formatted: taxId.formatted,
  };
}
