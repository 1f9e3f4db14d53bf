CREATE TABLE `audit_settings` (
	`org_id` text PRIMARY KEY NOT NULL,
	`retention_days` integer,
	`updated_at` text NOT NULL,
	`updated_by` text NOT NULL
);
