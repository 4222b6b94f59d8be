// `titular credits add|show`.
import { UsageError, namingFlags, oneOf, requiredString, stringOption, wholeNumber } from './args';
import { MAX_PURCHASE } from '../../../shared/api/balance';
import type { CommandSpec } from './context';
import { counted } from './bulk-counts';

const PRODUCTS = ['cbu', 'informes'] as const;

export const creditCommands: CommandSpec[] = [
  {
    name: 'credits add',
    synopsis: '--product cbu|informes --amount N [--reference REF]',
    summary: 'Record a credit purchase',
    details: [
      '--product cbu|informes   the wallet to credit',
      '--amount N               whole number of credits',
      '--reference REF          invoice or payment id; a purchase with a reference already',
      '                         recorded is not added again (safe to retry)',
    ],
    options: { product: { type: 'string' }, amount: { type: 'string' }, reference: { type: 'string' } },
    access: 'admin',
    vault: 'locked',
    run(ctx) {
      const product = oneOf(requiredString(ctx.values, 'product', ctx.command), PRODUCTS, '--product', ctx.command);
      const rawAmount = requiredString(ctx.values, 'amount', ctx.command);
      // The ledger's bounds, said as every number is (`0`, `-5` and `99999999999999999999` alike: the range).
      const amount = wholeNumber(rawAmount, '--amount', ctx.command, { min: 1, max: MAX_PURCHASE });
      // An empty --reference (a script's unset $INVOICE) is refused: taken as "no reference" it would
      // lose the idempotency a retry counts on, and each retry would add the credits again.
      const given = stringOption(ctx.values, 'reference');
      if (given !== undefined && given.trim() === '') throw new UsageError('--reference needs a value (or leave it out for a purchase without one)', ctx.command);
      const reference = given?.trim() || null;
      // The ledger's words name no flag (they are the API's and the desktop's too): the CLI adds them.
      const flagSubjects = [
        ['amount', '--amount', rawAmount],
        ['reference', '--reference', undefined],
        ['The reference', '--reference', undefined],
      ] as const;
      const result = namingFlags(ctx.command, flagSubjects, () => ctx.titular.ledger.addPurchase({ orgId: ctx.org.id, product, amount, reference, userId: ctx.actor.id }));
      if (ctx.out.json) {
        ctx.out.data({ added: result.added, id: result.id, product, amount, reference, balance: result.balance });
        return;
      }
      if (result.added) {
        ctx.out.line(`Added ${counted(amount, `${product} credit`, `${product} credits`)}${reference ? ` (reference ${reference})` : ''}. Balance: ${result.balance}`);
      } else {
        ctx.out.line(`Reference ${reference} was already recorded (purchase ${result.id}); nothing was added. Balance: ${result.balance}`);
      }
    },
  },
  {
    name: 'credits show',
    synopsis: '',
    summary: 'Show the credit balances',
    options: {},
    access: 'admin',
    vault: 'locked',
    run(ctx) {
      const balances = ctx.titular.ledger.balances(ctx.org.id);
      if (ctx.out.json) {
        ctx.out.data({ balances });
        return;
      }
      ctx.out.table(
        ['PRODUCT', 'NAME', 'BALANCE', 'PURCHASED', 'CONSUMED'],
        balances.map((b) => [b.productSlug, b.productName, String(b.balance), String(b.totalPurchased), String(b.totalConsumed)]),
      );
    },
  },
];
