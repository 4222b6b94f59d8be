DROP INDEX `lookups_page`;--> statement-breakpoint
CREATE INDEX `lookups_page` ON `lookups` (`org_id`,`environment`,`product`,`created_at`,`id`,`status`,`source`,`input_identifier`);--> statement-breakpoint
CREATE INDEX `lookup_daily_counts_sum` ON `lookup_daily_counts` (`org_id`,`environment`,`product`,`day`,`status`,`source`,`count`);