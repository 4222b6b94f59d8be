CREATE TABLE `bulk_job_items` (
	`job_id` text NOT NULL,
	`item_key` text NOT NULL,
	`identifier` text NOT NULL,
	`type` text NOT NULL,
	`first_row` integer NOT NULL,
	`lookup_id` text,
	`http_status` integer,
	`error_code` text,
	`credit_consumed` integer,
	`completed_at` integer,
	PRIMARY KEY(`job_id`, `item_key`),
	FOREIGN KEY (`job_id`) REFERENCES `bulk_jobs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `bulk_job_items_pending` ON `bulk_job_items` (`job_id`,`completed_at`,`first_row`);--> statement-breakpoint
CREATE TABLE `bulk_job_rows` (
	`job_id` text NOT NULL,
	`row_number` integer NOT NULL,
	`raw_input` text NOT NULL,
	`item_key` text,
	`invalid_message` text,
	PRIMARY KEY(`job_id`, `row_number`),
	FOREIGN KEY (`job_id`) REFERENCES `bulk_jobs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `bulk_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`user_id` text NOT NULL,
	`product` text NOT NULL,
	`name` text NOT NULL,
	`input_hash` text NOT NULL,
	`status` text NOT NULL,
	`total_rows` integer NOT NULL,
	`total_items` integer NOT NULL,
	`invalid_rows` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`finished_at` integer,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `bulk_jobs_org` ON `bulk_jobs` (`org_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `bulk_jobs_input` ON `bulk_jobs` (`org_id`,`input_hash`);--> statement-breakpoint
CREATE TABLE `directory_credit_reports` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`tax_id` text NOT NULL,
	`report` text NOT NULL,
	`imported_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `directory_credit_reports_tax_id` ON `directory_credit_reports` (`org_id`,`tax_id`);--> statement-breakpoint
CREATE TABLE `lookup_daily_counts` (
	`org_id` text NOT NULL,
	`environment` text NOT NULL,
	`product` text NOT NULL,
	`day` integer NOT NULL,
	`status` text NOT NULL,
	`source` text NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`org_id`, `environment`, `product`, `day`, `status`, `source`)
);
--> statement-breakpoint
CREATE TABLE `vault_secrets` (
	`name` text PRIMARY KEY NOT NULL,
	`ciphertext` blob NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
-- Backfill the daily counts from the history that existed before this migration.
INSERT INTO `lookup_daily_counts` (`org_id`, `environment`, `product`, `day`, `status`, `source`, `count`)
SELECT `org_id`, `environment`, `product`, `created_at` / 86400000, `status`, `source`, COUNT(*)
FROM `lookups` GROUP BY `org_id`, `environment`, `product`, `created_at` / 86400000, `status`, `source`;
