DROP INDEX `lookups_status_page`;--> statement-breakpoint
DROP INDEX `lookups_source_page`;