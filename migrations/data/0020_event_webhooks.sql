CREATE TABLE `webhook_endpoints` (
	`org_id` text NOT NULL,
	`id` text NOT NULL,
	`url` text NOT NULL,
	`description` text,
	`event_types` text NOT NULL,
	`enabled` integer NOT NULL,
	`secrets_enc` text NOT NULL,
	`destination_id` text,
	`disabled_reason` text,
	`disabled_at` text,
	`failing_since` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`org_id`, `id`)
);
--> statement-breakpoint
CREATE INDEX `webhook_endpoints_created_idx` ON `webhook_endpoints` (`org_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `webhook_events` (
	`org_id` text NOT NULL,
	`id` text NOT NULL,
	`type` text NOT NULL,
	`occurred_at` text NOT NULL,
	`data` text NOT NULL,
	`recorded_at` text NOT NULL,
	PRIMARY KEY(`org_id`, `id`)
);
--> statement-breakpoint
CREATE INDEX `webhook_events_occurred_idx` ON `webhook_events` (`org_id`,`occurred_at`);