CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`owner_user_id` text NOT NULL,
	`name` text,
	`product` text NOT NULL,
	`environment` text NOT NULL,
	`scopes` text NOT NULL,
	`ip_whitelist` text DEFAULT '[]' NOT NULL,
	`display_prefix` text NOT NULL,
	`key_hash` text NOT NULL,
	`key_ciphertext` blob NOT NULL,
	`rate_limit_per_second` integer NOT NULL,
	`rate_limit_burst` integer NOT NULL,
	`expires_at` integer,
	`revoked_at` integer,
	`rotated_at` integer,
	`last_used_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`owner_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_org` ON `api_keys` (`org_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `audit_log` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`actor_user_id` text,
	`action` text NOT NULL,
	`target_type` text NOT NULL,
	`target_id` text,
	`details` text DEFAULT '{}' NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `audit_log_org` ON `audit_log` (`org_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `credit_balances` (
	`org_id` text NOT NULL,
	`product` text NOT NULL,
	`balance` integer NOT NULL,
	`total_purchased` integer NOT NULL,
	`total_consumed` integer NOT NULL,
	PRIMARY KEY(`org_id`, `product`),
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `credit_ledger` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`product` text NOT NULL,
	`kind` text NOT NULL,
	`amount` integer NOT NULL,
	`reference` text,
	`lookup_id` text,
	`user_id` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `credit_ledger_reference` ON `credit_ledger` (`org_id`,`product`,`reference`) WHERE reference IS NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `credit_ledger_lookup` ON `credit_ledger` (`lookup_id`) WHERE lookup_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX `credit_ledger_org_product` ON `credit_ledger` (`org_id`,`product`,`created_at`);--> statement-breakpoint
CREATE TABLE `directory_accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`number` text NOT NULL,
	`alias_key` text,
	`alias` text,
	`account_type` text NOT NULL,
	`currency` text NOT NULL,
	`active` integer NOT NULL,
	`holders` text NOT NULL,
	`imported_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `directory_accounts_number` ON `directory_accounts` (`org_id`,`number`);--> statement-breakpoint
CREATE UNIQUE INDEX `directory_accounts_alias` ON `directory_accounts` (`org_id`,`alias_key`) WHERE alias_key IS NOT NULL;--> statement-breakpoint
CREATE TABLE `idempotency_records` (
	`api_key_id` text NOT NULL,
	`idempotency_key` text NOT NULL,
	`request_hash` text NOT NULL,
	`status_code` integer NOT NULL,
	`response_body` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`api_key_id`, `idempotency_key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_created` ON `idempotency_records` (`created_at`);--> statement-breakpoint
CREATE TABLE `lookups` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`environment` text NOT NULL,
	`product` text NOT NULL,
	`input_identifier` text NOT NULL,
	`input_type` text NOT NULL,
	`status` text NOT NULL,
	`error_code` text,
	`http_status` integer NOT NULL,
	`source` text NOT NULL,
	`response_data` text NOT NULL,
	`upstream_latency_ms` integer NOT NULL,
	`credit_consumed` integer NOT NULL,
	`user_id` text NOT NULL,
	`api_key_id` text,
	`request_id` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `lookups_page` ON `lookups` (`org_id`,`environment`,`product`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `lookups_status_page` ON `lookups` (`org_id`,`environment`,`product`,`status`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `lookups_source_page` ON `lookups` (`org_id`,`environment`,`product`,`source`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `lookups_identifier` ON `lookups` (`org_id`,`input_identifier`);--> statement-breakpoint
CREATE TABLE `organizations` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`name` text NOT NULL,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_org_email` ON `users` (`org_id`,`email`);--> statement-breakpoint
CREATE TABLE `vault_meta` (
	`id` integer PRIMARY KEY NOT NULL,
	`provider` text NOT NULL,
	`kdf` text,
	`wrapped_data_key` blob NOT NULL,
	`created_at` integer NOT NULL
);
