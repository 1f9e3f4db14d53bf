CREATE TABLE `bridges` (
	`org_id` text NOT NULL,
	`id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`credential_hash` text NOT NULL,
	`credential_prefix` text NOT NULL,
	`created_at` text NOT NULL,
	`created_by` text,
	`credential_rotated_at` text,
	PRIMARY KEY(`org_id`, `id`)
);
--> statement-breakpoint
CREATE INDEX `bridges_created_idx` ON `bridges` (`org_id`,`created_at`);