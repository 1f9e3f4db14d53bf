CREATE TABLE `device_integrations` (
	`org_id` text NOT NULL,
	`id` text NOT NULL,
	`platform` text NOT NULL,
	`name` text NOT NULL,
	`status` text NOT NULL,
	`credentials_enc` text,
	`credentials_masked` text NOT NULL,
	`settings` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`org_id`, `id`)
);
--> statement-breakpoint
CREATE INDEX `device_integrations_org_platform_idx` ON `device_integrations` (`org_id`,`platform`);--> statement-breakpoint
CREATE TABLE `device_links` (
	`org_id` text NOT NULL,
	`device_id` text NOT NULL,
	`patient_id` text NOT NULL,
	`name` text NOT NULL,
	`platform` text NOT NULL,
	`integration_id` text,
	`platform_device_id` text,
	`platform_user_id` text,
	`tokens_enc` text,
	`status` text NOT NULL,
	`last_sync_at` text,
	`created_at` text NOT NULL,
	PRIMARY KEY(`org_id`, `device_id`)
);
--> statement-breakpoint
CREATE INDEX `device_links_org_patient_idx` ON `device_links` (`org_id`,`patient_id`);--> statement-breakpoint
CREATE TABLE `device_rollups` (
	`org_id` text NOT NULL,
	`patient_id` text NOT NULL,
	`metric` text NOT NULL,
	`bucket` integer NOT NULL,
	`device_id` text NOT NULL,
	`n` integer NOT NULL,
	`total` real NOT NULL,
	`min` real NOT NULL,
	`max` real NOT NULL,
	PRIMARY KEY(`org_id`, `patient_id`, `metric`, `bucket`, `device_id`)
);
--> statement-breakpoint
CREATE TABLE `device_samples` (
	`org_id` text NOT NULL,
	`patient_id` text NOT NULL,
	`metric` text NOT NULL,
	`t` integer NOT NULL,
	`device_id` text NOT NULL,
	`value` real NOT NULL,
	PRIMARY KEY(`org_id`, `patient_id`, `metric`, `t`, `device_id`)
);
--> statement-breakpoint
CREATE TABLE `device_sync_logs` (
	`org_id` text NOT NULL,
	`id` text NOT NULL,
	`device_id` text NOT NULL,
	`state` text NOT NULL,
	`from_date` text NOT NULL,
	`to_date` text NOT NULL,
	`progress` text NOT NULL,
	`requested_by` text NOT NULL,
	`created_at` text NOT NULL,
	`started_at` text,
	`finished_at` text,
	PRIMARY KEY(`org_id`, `id`)
);
--> statement-breakpoint
CREATE INDEX `device_sync_logs_org_device_idx` ON `device_sync_logs` (`org_id`,`device_id`,`created_at`);