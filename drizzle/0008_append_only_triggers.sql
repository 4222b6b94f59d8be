-- The credit ledger, the lookup history and the audit trail are append-only (README, Decisions): a
-- correction is a new row, never an edit. The code only ever inserts into them; these triggers make the
-- database refuse the rest too, so a future query or a tool opened on the file cannot rewrite money or
-- history in place. They fire on UPDATE and DELETE only: inserts, the lookup path's writes, pay nothing.
-- DROP TABLE fires no trigger, so a migration that rebuilds one of these tables must create them again
-- (test/schema-migrations.test.ts fails until it does).
CREATE TRIGGER `credit_ledger_no_update` BEFORE UPDATE ON `credit_ledger` BEGIN SELECT RAISE(ABORT, 'credit_ledger is append-only'); END;
--> statement-breakpoint
CREATE TRIGGER `credit_ledger_no_delete` BEFORE DELETE ON `credit_ledger` BEGIN SELECT RAISE(ABORT, 'credit_ledger is append-only'); END;
--> statement-breakpoint
CREATE TRIGGER `lookups_no_update` BEFORE UPDATE ON `lookups` BEGIN SELECT RAISE(ABORT, 'lookups is append-only'); END;
--> statement-breakpoint
CREATE TRIGGER `lookups_no_delete` BEFORE DELETE ON `lookups` BEGIN SELECT RAISE(ABORT, 'lookups is append-only'); END;
--> statement-breakpoint
CREATE TRIGGER `audit_log_no_update` BEFORE UPDATE ON `audit_log` BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
--> statement-breakpoint
CREATE TRIGGER `audit_log_no_delete` BEFORE DELETE ON `audit_log` BEGIN SELECT RAISE(ABORT, 'audit_log is append-only'); END;
