-- Every charge paid an entry in this index, only for the desktop's consumption chart. The chart now reads
-- its time range through the primary key (ids are UUIDv7, ordered by time: ledger.ts, consumedByDay).
DROP INDEX `credit_ledger_org_product`;
