CREATE TABLE `bulk_exports` (
	`org_id` text NOT NULL,
	`id` text NOT NULL,
	`level` text NOT NULL,
	`group_id` text,
	`types` text NOT NULL,
	`since` text,
	`requested_by_key_id` text NOT NULL,
	`requested_by_name` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`org_id`, `id`)
);
--> statement-breakpoint
CREATE INDEX `bulk_exports_org_created` ON `bulk_exports` (`org_id`,`created_at`);