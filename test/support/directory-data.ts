// A small directory of accounts for live lookups in tests (valid check digits, fictitious people).
import { withCheckDigits, withCuitCheckDigit } from '../../src/shared/identifiers';

const cuit = (first10: string) => {
  const value = withCuitCheckDigit(first10);
  if (!value) throw new Error(`no check digit for ${first10}`);
  return value;
};

export const DIR = {
  individual: { cbu: withCheckDigits('029', '0001', '0000000000777'), alias: 'LUNA.RIO.MAR', taxId: cuit('2730111222') },
  company: { cbu: withCheckDigits('285', '0590', '0000001234567'), alias: 'distribuidora.sur', taxId: cuit('3070111222') },
  joint: { cbu: withCheckDigits('007', '0123', '0000000456789'), taxIdA: cuit('2020333444'), taxIdB: cuit('2720555667') },
  wallet: { cbu: withCheckDigits('000', '0003', '1000000000042'), alias: 'billetera.test' },
  /** Valid, but not in the directory: PA011. */
  missing: { cbu: withCheckDigits('011', '0001', '0000000000001'), alias: 'nadie.tiene.esto' },
};

export const DIRECTORY_CSV = [
  'cbu,alias,account_type,currency,active,holder_name,holder_tax_id',
  `${DIR.individual.cbu},${DIR.individual.alias},CA,ARS,true,Lucía Luna,${DIR.individual.taxId}`,
  `${DIR.company.cbu},${DIR.company.alias},CC,ARS,true,"Distribuidora Sur, S.R.L.",${DIR.company.taxId}`,
  `${DIR.joint.cbu},,CA,USD,false,Pablo Ríos,${DIR.joint.taxIdA}`,
  `${DIR.joint.cbu},,CA,USD,false,Inés Ríos,${DIR.joint.taxIdB}`,
  `${DIR.wallet.cbu},${DIR.wallet.alias},VIRTUAL,ARS,true,Tomás Billetera,${cuit('2033444555')}`,
].join('\n');

/** A CBU with a wrong second check digit. */
export function breakCheckDigit(cbu: string): string {
  const last = Number(cbu.at(-1));
  return cbu.slice(0, -1) + String((last + 1) % 10);
}
