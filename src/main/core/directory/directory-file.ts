// Parses an organization's directory file (CSV or JSON) into accounts ready to store.
// Pure and synchronous: no I/O, so the same code checks a file in the UI preview and on import.
// Every bad row becomes one error naming its line; good rows are kept, so the caller decides
// between all-or-nothing and skipping invalid rows (see Directory.import).
import type { Holder, LookupData } from '../../../shared/api/lookup';
import { CsvReader, detectSeparator, isBlank, stripBom, type CsvRecord } from './csv-reader';
import { parseAccountFields, parseHolder, type AccountFields, type HolderEntry, type TaxIdType } from './directory-fields';
import { isRecord, show, unknownKeys } from './field-rules';

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
