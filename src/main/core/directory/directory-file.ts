// Parses an organization's directory file (CSV or JSON) into accounts ready to store.
// Pure and synchronous: no I/O, so the same code checks a file in the UI preview and on import.
// Every bad row becomes one error naming its line; good rows are kept, so the caller decides
// between all-or-nothing and skipping invalid rows (see Directory.import).
import type { Holder, LookupData } from '../../../shared/api/lookup';
import { analyzeAlias, analyzeCbu } from '../../../shared/identifiers';
import { BOOLEANS, WHITESPACE_RUN, characterCount, enumKey, isRecord, parseTaxId, show, unknownKeys } from './field-rules';

export interface DirectoryAccount {
  /** The 22 validated digits. */
  number: string;
  /** Lowercased alias used for matching, or null when the account has none. */
  aliasKey: string | null;
  data: LookupData;
}

export interface DirectoryRowError {
  /** 1-based line in the file (CSV: physical line where the row starts; header is line 1) or 1-based item index (JSON). */
  line: number;
  /** English; names the field and says why. Several problems of one row are joined with "; ". */
  reason: string;
}

export interface ParsedDirectory {
  accounts: DirectoryAccount[];
  errors: DirectoryRowError[];
  /** Data rows (CSV, blank lines excluded) or items (JSON) read. */
  rows: number;
  /** The whole file was refused (bad header, invalid JSON, too many rows): its one error says why. */
  fileProblem?: true;
}

export const DIRECTORY_CSV_COLUMNS = [
  'cbu',
  'alias',
  'account_type',
  'currency',
  'active',
  'holder_name',
  'holder_tax_id',
] as const;
export const MAX_DIRECTORY_ROWS = 200_000;
export const MAX_HOLDERS_PER_ACCOUNT = 20;
export const MAX_HOLDER_NAME_LENGTH = 200;

type AccountType = LookupData['account_type'];
type Currency = LookupData['currency'];
type Scheme = LookupData['account']['scheme'];
type TaxIdType = Holder['tax_id_type'];

// ---------------------------------------------------------------------------------------------
// Format detection

/** By extension first (the user chose it); otherwise JSON when the content starts like JSON. */
export function detectDirectoryFormat(fileName: string, content: string): 'csv' | 'json' {
  const lower = fileName.trim().toLowerCase();
  if (lower.endsWith('.json')) return 'json';
  if (lower.endsWith('.csv')) return 'csv';
  const first = stripBom(content).trimStart().charAt(0);
  return first === '[' || first === '{' ? 'json' : 'csv';
}

export function parseDirectoryFile(content: string, format: 'csv' | 'json'): ParsedDirectory {
  const text = stripBom(content);
  return format === 'json' ? parseJson(text) : parseCsv(text);
}

export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

// ---------------------------------------------------------------------------------------------
// Field rules, shared by CSV and JSON. Each parser returns undefined when the value is invalid,
// after pushing a message to `problems`, so one row can report all its bad fields at once.

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
interface AccountFields {
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

function parseAccountFields(input: AccountInput, problems: string[]): AccountFields | undefined {
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
interface HolderEntry {
  holder: Holder;
  taxIdLabel: string;
  formatted: string;
}

function parseHolder(
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

// ---------------------------------------------------------------------------------------------
// Grouping rows into accounts

interface PendingAccount {
  /** Line (or item) that created the account: the reference for "differs from …" messages. */
  firstLine: number;
  fields: AccountFields;
  holders: Holder[];
  /** tax id → line where that holder appeared, for the duplicate-holder message. */
  holderLines: Map<string, number>;
}

/**
 * Merges validated rows into accounts, keyed by normalized number, enforcing the rules that
 * span rows: agreement of account fields, unique holders, holder limit, aliases unique across
 * accounts. Maps make each check O(1), so a 200,000-row file stays linear.
 */
class AccountCollector {
  readonly #accounts = new Map<string, PendingAccount>();
  /** alias key → account (number and first line) that owns it. */
  readonly #aliasOwners = new Map<string, { number: string; line: number }>();

  /** @param where  how a position is named in messages: "line 3" (CSV) or "item 3" (JSON). */
  constructor(private readonly where: (line: number) => string) {}

  /** Adds a row/item; returns its problems. A row with problems changes nothing (all or nothing per row). */
  add(fields: AccountFields, holders: HolderEntry[], line: number): string[] {
    const existing = this.#accounts.get(fields.cbu.number);
    const problems = existing ? this.#disagreements(existing, fields) : this.#aliasClash(fields);
    if (problems.length > 0) return problems;
    const account = existing ?? this.#create(fields, line);
    problems.push(...this.#holderProblems(account, holders, line));
    if (problems.length > 0) {
      // A new account whose only row is rejected must not linger or keep its alias.
      if (!existing) this.#forget(account);
      return problems;
    }
    for (const entry of holders) {
      account.holders.push(entry.holder);
      account.holderLines.set(entry.holder.tax_id, line);
    }
    return problems;
  }

  accounts(): DirectoryAccount[] {
    const result: DirectoryAccount[] = [];
    for (const account of this.#accounts.values()) result.push(toDirectoryAccount(account));
    return result;
  }

  #create(fields: AccountFields, line: number): PendingAccount {
    const account: PendingAccount = { firstLine: line, fields, holders: [], holderLines: new Map() };
    this.#accounts.set(fields.cbu.number, account);
    if (fields.alias.key !== null) this.#aliasOwners.set(fields.alias.key, { number: fields.cbu.number, line });
    return account;
  }

  #forget(account: PendingAccount): void {
    this.#accounts.delete(account.fields.cbu.number);
    if (account.fields.alias.key !== null) this.#aliasOwners.delete(account.fields.alias.key);
  }

  #aliasClash(fields: AccountFields): string[] {
    const key = fields.alias.key;
    const owner = key === null ? undefined : this.#aliasOwners.get(key);
    if (owner === undefined) return [];
    return [`alias ${show(fields.alias.alias)} is already used by cbu ${owner.number} on ${this.where(owner.line)}`];
  }

  /** Rows of one account repeat its fields; any mismatch means the file is ambiguous. */
  #disagreements(account: PendingAccount, fields: AccountFields): string[] {
    const first = account.fields;
    const differing: string[] = [];
    // Aliases are case-insensitive, so "Mi.Alias" and "mi.alias" agree.
    if (first.alias.key !== fields.alias.key) differing.push('alias');
    if (first.accountType !== fields.accountType) differing.push('account_type');
    if (first.currency !== fields.currency) differing.push('currency');
    if (first.active !== fields.active) differing.push('active');
    const from = this.where(account.firstLine);
    return differing.map((field) => `${field} differs from ${from} for the same cbu`);
  }

  #holderProblems(account: PendingAccount, holders: HolderEntry[], line: number): string[] {
    const problems: string[] = [];
    const seenHere = new Set<string>();
    for (const entry of holders) {
      const taxId = entry.holder.tax_id;
      const earlier = account.holderLines.get(taxId);
      if (earlier !== undefined || seenHere.has(taxId)) {
        const at = this.where(earlier ?? line);
        problems.push(`${entry.taxIdLabel} ${entry.formatted} is already a holder of this cbu (${at})`);
      }
      seenHere.add(taxId);
    }
    const total = account.holders.length + holders.length;
    if (total > MAX_HOLDERS_PER_ACCOUNT) {
      problems.push(
        `too many holders for this cbu: at most ${MAX_HOLDERS_PER_ACCOUNT} per account (account starts on ${this.where(account.firstLine)})`,
      );
    }
    return problems;
  }
}

function toDirectoryAccount(account: PendingAccount): DirectoryAccount {
  const { cbu, alias, accountType, currency, active } = account.fields;
  return {
    number: cbu.number,
    aliasKey: alias.key,
    data: {
      holders: account.holders,
      account_type: accountType,
      active,
      currency,
      alias: alias.alias,
      account: { scheme: cbu.scheme, number: cbu.number },
      bank: cbu.bank,
    },
  };
}

/** A whole-file problem (bad header, invalid JSON, too many rows): nothing is imported. */
function fileError(line: number, reason: string, rows = 0): ParsedDirectory {
  return { accounts: [], errors: [{ line, reason }], rows, fileProblem: true };
}

function tooManyRows(line: number, rows: number, unit: string): ParsedDirectory {
  return fileError(line, `file has more than ${MAX_DIRECTORY_ROWS} ${unit} (the limit per import); split it into several files`, rows);
}

// ---------------------------------------------------------------------------------------------
// CSV

const QUOTE = 0x22;
const LF = 0x0a;
const CR = 0x0d;
const COMMA = 0x2c;
const SEMICOLON = 0x3b;

export interface CsvRecord {
  /** Physical line where the record starts. */
  line: number;
  fields: string[];
  /** Set when the quoting is broken; the fields are then unreliable. */
  error?: string;
}

/**
 * Excel in a Spanish locale writes ";" because "," is the decimal separator there. The header
 * has no quoted commas or semicolons, so counting them on its line is unambiguous.
 */
export function detectSeparator(text: string): number {
  let commas = 0;
  let semicolons = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === LF || c === CR) break;
    if (c === COMMA) commas++;
    else if (c === SEMICOLON) semicolons++;
  }
  return semicolons > commas ? SEMICOLON : COMMA;
}

/** Line breaks in text[from, to): CRLF, LF or a lone CR each count once. */
function countLineBreaks(text: string, from: number, to: number): number {
  let count = 0;
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === LF || (c === CR && text.charCodeAt(i + 1) !== LF)) count++;
  }
  return count;
}

/** A record's error when a quoted field never closes: the rest of the text would be that one field. */
export const UNTERMINATED_QUOTE = 'unterminated quoted field (a " is never closed)';

/**
 * RFC 4180 tokenizer: one pass over the text with indexOf/charCodeAt, no per-row regexes.
 * Lenient where Excel is: a quote inside an unquoted field is literal, and lone CR ends a line.
 */
export class CsvReader {
  #pos = 0;
  #line = 1;

  constructor(
    private readonly text: string,
    private readonly separator: number,
  ) {}

  /** Next record, or null at end of text. */
  next(): CsvRecord | null {
    if (this.#pos >= this.text.length) return null;
    const record: CsvRecord = { line: this.#line, fields: [] };
    for (;;) {
      const field = this.#startsQuoted() ? this.#quotedField(record) : this.#plainField();
      record.fields.push(field);
      if (this.#pos >= this.text.length) return record;
      if (this.text.charCodeAt(this.#pos) === this.separator) {
        this.#pos++;
        continue;
      }
      this.#skipLineBreak();
      return record;
    }
  }

  /**
   * True when the field is quoted, allowing spaces before the quote (`a, "b, c"` from hand-edited
   * files); moves past those spaces. An unquoted field keeps them: values are trimmed later anyway.
   */
  #startsQuoted(): boolean {
    const text = this.text;
    let i = this.#pos;
    while (isInlineSpace(text.charCodeAt(i))) i++;
    if (text.charCodeAt(i) !== QUOTE) return false;
    this.#pos = i;
    return true;
  }

  #plainField(): string {
    const { text, separator } = this;
    const start = this.#pos;
    let i = start;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === separator || c === LF || c === CR) break;
      i++;
    }
    this.#pos = i;
    return text.slice(start, i);
  }

  #quotedField(record: CsvRecord): string {
    const text = this.text;
    const open = this.#pos;
    let value = '';
    let segment = open + 1;
    for (;;) {
      const quote = text.indexOf('"', segment);
      if (quote === -1) {
        // Everything after an unclosed quote would be one field: stop instead of guessing.
        record.error = UNTERMINATED_QUOTE;
        this.#pos = text.length;
        return value + text.slice(segment);
      }
      value += text.slice(segment, quote);
      if (text.charCodeAt(quote + 1) === QUOTE) {
        value += '"';
        segment = quote + 2;
        continue;
      }
      this.#line += countLineBreaks(text, open, quote);
      this.#pos = quote + 1;
      break;
    }
    this.#skipGarbageAfterQuote(record);
    return value;
  }

  /**
   * `"abc"x,` is not valid CSV; report it and resynchronize at the next separator or line end.
   * Spaces alone after the closing quote are tolerated, like spaces before the opening one.
   */
  #skipGarbageAfterQuote(record: CsvRecord): void {
    const { text, separator } = this;
    let i = this.#pos;
    let garbage = false;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === separator || c === LF || c === CR) break;
      if (!isInlineSpace(c)) garbage = true;
      i++;
    }
    if (garbage) record.error ??= `field ${record.fields.length + 1} has text after its closing quote`;
    this.#pos = i;
  }

  #skipLineBreak(): void {
    const c = this.text.charCodeAt(this.#pos);
    this.#pos += c === CR && this.text.charCodeAt(this.#pos + 1) === LF ? 2 : 1;
    this.#line++;
  }
}

function isInlineSpace(c: number): boolean {
  return c === 0x20 || c === 0x09;
}

export function isBlank(fields: readonly string[]): boolean {
  return fields.every((field) => field.trim() === '');
}

/** Null when the header is right; otherwise one message describing every difference. */
function headerProblem(fields: readonly string[], separator: number): string | null {
  const names = fields.map((field) => stripBom(field).trim().toLowerCase());
  const expected: readonly string[] = DIRECTORY_CSV_COLUMNS;
  if (names.length === expected.length && names.every((name, i) => name === expected[i])) return null;

  const parts: string[] = [];
  const missing = expected.filter((name) => !names.includes(name));
  const unknown = names.filter((name) => !expected.includes(name)).map((name) => (name === '' ? '(empty)' : name));
  const repeated = expected.filter((name) => names.indexOf(name) !== names.lastIndexOf(name));
  if (missing.length > 0) parts.push(`missing column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
  if (unknown.length > 0) parts.push(`unknown column${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`);
  if (repeated.length > 0) parts.push(`repeated column${repeated.length > 1 ? 's' : ''} ${repeated.join(', ')}`);
  if (parts.length === 0) parts.push('columns are in the wrong order');
  const sep = String.fromCharCode(separator);
  return `invalid header: ${parts.join('; ')} (expected exactly: ${expected.join(sep)})`;
}

/** Reads all data records up front so an oversized file is rejected before any validation work. */
function readCsvRows(reader: CsvReader): { rows: CsvRecord[]; overflowLine: number | null } {
  const rows: CsvRecord[] = [];
  for (let record = reader.next(); record !== null; record = reader.next()) {
    if (record.error === undefined && isBlank(record.fields)) continue;
    if (rows.length === MAX_DIRECTORY_ROWS) return { rows, overflowLine: record.line };
    rows.push(record);
  }
  return { rows, overflowLine: null };
}

function parseCsv(text: string): ParsedDirectory {
  const separator = detectSeparator(text);
  const reader = new CsvReader(text, separator);
  let header = reader.next();
  while (header !== null && header.error === undefined && isBlank(header.fields)) header = reader.next();
  if (header === null) return fileError(1, `file is empty (expected the header ${DIRECTORY_CSV_COLUMNS.join(',')})`);
  if (header.error !== undefined) return fileError(header.line, `invalid header: ${header.error}`);
  const problem = headerProblem(header.fields, separator);
  if (problem !== null) return fileError(header.line, problem);

  const { rows, overflowLine } = readCsvRows(reader);
  if (overflowLine !== null) return tooManyRows(overflowLine, rows.length + 1, 'rows');

  const collector = new AccountCollector((line) => `line ${line}`);
  const errors: DirectoryRowError[] = [];
  for (const record of rows) {
    const problems = csvRowProblems(record, collector);
    if (problems.length > 0) errors.push({ line: record.line, reason: problems.join('; ') });
  }
  return { accounts: collector.accounts(), errors, rows: rows.length };
}

const CSV_HOLDER_LABELS = { name: 'holder_name', taxId: 'holder_tax_id' } as const;

function csvRowProblems(record: CsvRecord, collector: AccountCollector): string[] {
  if (record.error !== undefined) return [record.error];
  const f = record.fields;
  if (f.length !== DIRECTORY_CSV_COLUMNS.length) {
    return [`expected ${DIRECTORY_CSV_COLUMNS.length} fields but found ${f.length}`];
  }
  const problems: string[] = [];
  const fields = parseAccountFields(
    { cbu: f[0] ?? '', alias: f[1] ?? '', accountType: f[2] ?? '', currency: f[3] ?? '', active: f[4] ?? '' },
    problems,
  );
  const holder = parseHolder({ name: f[5] ?? '', taxId: f[6] ?? '' }, CSV_HOLDER_LABELS, problems);
  if (fields === undefined || holder === undefined) return problems;
  return collector.add(fields, [holder], record.line);
}

// ---------------------------------------------------------------------------------------------
// JSON

const ACCOUNT_KEYS: ReadonlySet<string> = new Set(['cbu', 'alias', 'account_type', 'currency', 'active', 'holders']);
const HOLDER_KEYS: ReadonlySet<string> = new Set(['full_name', 'tax_id', 'tax_id_type', 'is_individual']);

function parseJson(text: string): ParsedDirectory {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    return fileError(1, `invalid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const items = jsonItems(document);
  if (items === null) return fileError(1, 'expected an array of accounts or an object with an "accounts" array');
  if (items.length > MAX_DIRECTORY_ROWS) return tooManyRows(MAX_DIRECTORY_ROWS + 1, items.length, 'items');

  const collector = new AccountCollector((index) => `item ${index}`);
  const errors: DirectoryRowError[] = [];
  items.forEach((item, i) => {
    const problems = jsonItemProblems(item, collector, i + 1);
    if (problems.length > 0) errors.push({ line: i + 1, reason: problems.join('; ') });
  });
  return { accounts: collector.accounts(), errors, rows: items.length };
}

function jsonItems(document: unknown): unknown[] | null {
  if (Array.isArray(document)) return document;
  if (isRecord(document) && Array.isArray(document.accounts)) return document.accounts as unknown[];
  return null;
}

/** Optional text: absent or null means empty. Anything else that is not a string is reported. */
function jsonText(value: unknown, label: string, problems: string[]): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  problems.push(`${label} must be a string`);
  return '';
}

function jsonCbu(value: unknown, problems: string[]): string | undefined {
  // 22 digits exceed Number.MAX_SAFE_INTEGER: a numeric cbu has already lost digits.
  if (typeof value === 'number') {
    problems.push('cbu must be a string (a 22-digit number loses precision in JSON)');
    return undefined;
  }
  if (typeof value !== 'string') {
    problems.push(value === undefined || value === null ? 'cbu is required' : 'cbu must be a string');
    return undefined;
  }
  return value;
}

function jsonActive(value: unknown, problems: string[]): string | boolean | undefined {
  if (value === undefined || value === null) return '';
  if (typeof value === 'boolean' || typeof value === 'string') return value;
  if (value === 1 || value === 0) return value === 1;
  problems.push('active must be a boolean');
  return undefined;
}

function jsonItemProblems(item: unknown, collector: AccountCollector, index: number): string[] {
  if (!isRecord(item)) return ['item must be an object'];
  const problems = unknownKeys(item, ACCOUNT_KEYS, '');
  const cbu = jsonCbu(item.cbu, problems);
  const alias = jsonText(item.alias, 'alias', problems);
  const accountType = jsonText(item.account_type, 'account_type', problems);
  const currency = jsonText(item.currency, 'currency', problems);
  const active = jsonActive(item.active, problems);
  const fields = parseAccountFields({ cbu, alias, accountType, currency, active }, problems);
  const holders = jsonHolders(item.holders, problems);
  if (problems.length > 0 || fields === undefined || holders === undefined) return problems;
  return collector.add(fields, holders, index);
}

function jsonHolders(value: unknown, problems: string[]): HolderEntry[] | undefined {
  if (!Array.isArray(value) || value.length === 0) {
    problems.push('holders must be a non-empty array');
    return undefined;
  }
  if (value.length > MAX_HOLDERS_PER_ACCOUNT) {
    problems.push(`holders has ${value.length} entries (at most ${MAX_HOLDERS_PER_ACCOUNT} per account)`);
    return undefined;
  }
  const before = problems.length;
  const holders: HolderEntry[] = [];
  value.forEach((raw: unknown, i) => {
    const holder = jsonHolder(raw, `holders[${i}]`, problems);
    if (holder !== undefined) holders.push(holder);
  });
  return problems.length > before ? undefined : holders;
}

function jsonHolder(raw: unknown, path: string, problems: string[]): HolderEntry | undefined {
  if (!isRecord(raw)) {
    problems.push(`${path} must be an object`);
    return undefined;
  }
  const before = problems.length;
  problems.push(...unknownKeys(raw, HOLDER_KEYS, `${path}.`));
  const name = jsonText(raw.full_name, `${path}.full_name`, problems);
  const taxId = jsonText(raw.tax_id, `${path}.tax_id`, problems);
  const taxIdType = jsonTaxIdType(raw.tax_id_type, `${path}.tax_id_type`, problems);
  const isIndividual = jsonOptionalBoolean(raw.is_individual, `${path}.is_individual`, problems);
  const labels = { name: `${path}.full_name`, taxId: `${path}.tax_id` };
  const holder = parseHolder({ name, taxId, taxIdType, isIndividual }, labels, problems);
  return problems.length > before ? undefined : holder;
}

function jsonTaxIdType(value: unknown, label: string, problems: string[]): TaxIdType | undefined {
  if (value === undefined || value === null) return undefined;
  const key = typeof value === 'string' ? value.trim().toUpperCase() : '';
  if (key === 'CUIT' || key === 'CUIL') return key;
  problems.push(`${label} must be "CUIT" or "CUIL"`);
  return undefined;
}

function jsonOptionalBoolean(value: unknown, label: string, problems: string[]): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'boolean') return value;
  problems.push(`${label} must be a boolean`);
  return undefined;
}
