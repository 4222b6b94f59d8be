// Generates a directory CSV of `count` accounts with valid BCRA check digits (fictitious holders).
const W1 = [7, 1, 3, 9, 7, 1, 3];
const W2 = [3, 9, 7, 1, 3, 9, 7, 1, 3, 9, 7, 1, 3];
const check = (digits, weights) => (10 - (weights.reduce((sum, w, i) => sum + w * Number(digits[i]), 0) % 10)) % 10;

export function cbu(entity, branch, account) {
  const block1 = `${entity}${branch}`;
  const acct = String(account).padStart(13, '0');
  return `${block1}${check(block1, W1)}${acct}${check(acct, W2)}`;
}

export function cuit(prefix, dni) {
  const first10 = `${prefix}${String(dni).padStart(8, '0')}`;
  const weights = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2];
  const mod = weights.reduce((sum, w, i) => sum + w * Number(first10[i]), 0) % 11;
  if (mod === 1) return null;
  return `${first10}${mod === 0 ? 0 : 11 - mod}`;
}

export function directoryCsv(count) {
  const rows = ['cbu,alias,account_type,currency,active,holder_name,holder_tax_id'];
  const numbers = [];
  let dni = 20_000_000;
  for (let i = 0; i < count; i++) {
    const number = cbu('285', '0590', 1_000_000 + i);
    let taxId = null;
    while (!taxId) taxId = cuit('20', dni++);
    numbers.push(number);
    rows.push(`${number},bench.cuenta.${i},CA,ARS,true,Titular Numero ${i},${taxId}`);
  }
  return { csv: rows.join('\n'), numbers };
}
