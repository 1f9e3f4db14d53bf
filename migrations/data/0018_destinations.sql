CREATE TABLE `destinations` (
	`org_id` text NOT NULL,
	`id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`target` text NOT NULL,
	`owner_kind` text,
	`owner_id` text,
	`ordering` text NOT NULL,
	`concurrency` integer NOT NULL,
	`retry` text NOT NULL,
	`timeout_ms` integer NOT NULL,
	`http` text NOT NULL,
	`hl7` text,
	`signing_enc` text,
	`state` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`org_id`, `id`)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `destinations_name_idx` ON `destinations` (`org_id`,`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `destinations_owner_idx` ON `destinations` (`org_id`,`owner_kind`,`owner_id`);--> statement-breakpoint
CREATE INDEX `destinations_created_idx` ON `destinations` (`org_id`,`created_at`);