CREATE TABLE `subscription_events` (
	`org_id` text NOT NULL,
	`subscription_id` text NOT NULL,
	`event_number` integer NOT NULL,
	`occurred_at` text NOT NULL,
	`focus_type` text NOT NULL,
	`focus_id` text NOT NULL,
	`focus_version` text NOT NULL,
	`action` text NOT NULL,
	PRIMARY KEY(`org_id`, `subscription_id`, `event_number`)
);
--> statement-breakpoint
CREATE TABLE `subscription_states` (
	`org_id` text NOT NULL,
	`subscription_id` text NOT NULL,
	`resource` text NOT NULL,
	`status` text NOT NULL,
	`destination_id` text,
	`event_count` integer DEFAULT 0 NOT NULL,
	`heartbeat_seconds` integer,
	`next_heartbeat_at` text,
	`handshake_id` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`org_id`, `subscription_id`)
);
--> statement-breakpoint
CREATE INDEX `subscription_states_heartbeat_idx` ON `subscription_states` (`next_heartbeat_at`);