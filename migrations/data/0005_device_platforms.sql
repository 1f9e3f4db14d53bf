CREATE TABLE `device_oauth_states` (
	`org_id` text NOT NULL,
	`state` text NOT NULL,
	`kind` text NOT NULL,
	`patient_id` text NOT NULL,
	`device_id` text NOT NULL,
	`verifier_enc` text NOT NULL,
	`redirect_uri` text NOT NULL,
	`expires_at` text NOT NULL,
	PRIMARY KEY(`org_id`, `state`)
);
--> statement-breakpoint
CREATE INDEX `device_oauth_states_expiry_idx` ON `device_oauth_states` (`org_id`,`expires_at`);--> statement-breakpoint
CREATE TABLE `device_platform_links` (
	`org_id` text NOT NULL,
	`device_id` text NOT NULL,
	`kind` text NOT NULL,
	`patient_id` text NOT NULL,
	`platform_user_id` text NOT NULL,
	`tokens_enc` text NOT NULL,
	`expires_at` text,
	`version` integer NOT NULL,
	`refresh_lease_until` text,
	`status` text NOT NULL,
	`status_reason` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`org_id`, `device_id`)
);
--> statement-breakpoint
CREATE INDEX `device_platform_links_user_idx` ON `device_platform_links` (`org_id`,`kind`,`platform_user_id`);--> statement-breakpoint
CREATE TABLE `device_webhook_events` (
	`org_id` text NOT NULL,
	`id` text NOT NULL,
	`kind` text NOT NULL,
	`body_sha256` text NOT NULL,
	`body` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer NOT NULL,
	`readings` integer NOT NULL,
	`deleted` integer NOT NULL,
	`error` text,
	`received_at` text NOT NULL,
	`processed_at` text,
	PRIMARY KEY(`org_id`, `id`)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `device_webhook_events_replay_idx` ON `device_webhook_events` (`org_id`,`kind`,`body_sha256`);--> statement-breakpoint
CREATE INDEX `device_webhook_events_received_idx` ON `device_webhook_events` (`org_id`,`received_at`);