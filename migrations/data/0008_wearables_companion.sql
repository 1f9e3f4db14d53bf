CREATE TABLE `companion_grants` (
	`org_id` text NOT NULL,
	`device_id` text NOT NULL,
	`first_grant_at` text NOT NULL,
	PRIMARY KEY(`org_id`, `device_id`)
);
--> statement-breakpoint
CREATE TABLE `companion_record_versions` (
	`org_id` text NOT NULL,
	`device_id` text NOT NULL,
	`record_id` text NOT NULL,
	`version` integer NOT NULL,
	`observation_ids` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`org_id`, `device_id`, `record_id`)
);
--> statement-breakpoint
CREATE TABLE `device_upload_tokens` (
	`org_id` text NOT NULL,
	`id` text NOT NULL,
	`device_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`label` text,
	`created_by` text NOT NULL,
	`created_at` text NOT NULL,
	`last_used_at` text,
	`revoked_at` text,
	PRIMARY KEY(`org_id`, `id`)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `device_upload_tokens_hash_idx` ON `device_upload_tokens` (`org_id`,`token_hash`);