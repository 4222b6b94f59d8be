-- A consumption's id is now its lookup's id (ledger.ts, consumeOne): the primary key lets a lookup be charged
-- once, and this index only cost an entry per charge.
DROP INDEX `credit_ledger_lookup`;