CREATE TABLE `alert_rule_states` (
	`org_id` text NOT NULL,
	`rule_id` text NOT NULL,
	`stream` text NOT NULL,
	`version` integer NOT NULL,
	`open_alert_id` text,
	`watermark` integer,
	`watermark_ids` text NOT NULL,
	`last_reading_at` integer,
	`last_observation_id` text,
	`recent` text NOT NULL,
	`devices` text NOT NULL,
	`next_check_at` integer,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`org_id`, `rule_id`, `stream`)
);
--> statement-breakpoint
CREATE INDEX `alert_rule_states_due_idx` ON `alert_rule_states` (`next_check_at`);--> statement-breakpoint
CREATE TABLE `alert_rules` (
	`org_id` text NOT NULL,
	`id` text NOT NULL,
	`name` text NOT NULL,
	`patient_id` text NOT NULL,
	`metric` text,
	`device_id` text,
	`kind` text NOT NULL,
	`params` text NOT NULL,
	`recipients` text NOT NULL,
	`severity` text NOT NULL,
	`pipeline_id` text,
	`enabled` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`org_id`, `id`)
);
--> statement-breakpoint
CREATE INDEX `alert_rules_patient_idx` ON `alert_rules` (`org_id`,`patient_id`);--> statement-breakpoint
CREATE INDEX `alert_rules_created_idx` ON `alert_rules` (`org_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `alerts` (
	`org_id` text NOT NULL,
	`id` text NOT NULL,
	`rule_id` text NOT NULL,
	`patient_id` text NOT NULL,
	`kind` text NOT NULL,
	`metric` text,
	`device_id` text,
	`severity` text NOT NULL,
	`recipients` text NOT NULL,
	`pipeline_id` text,
	`state` text NOT NULL,
	`message` text NOT NULL,
	`value` real,
	`limit` real,
	`observation_ids` text NOT NULL,
	`started_at` text NOT NULL,
	`episode_ended_at` text,
	`resources` text NOT NULL,
	`pipeline_runs` text NOT NULL,
	`published_at` text,
	`publish_attempts` integer DEFAULT 0 NOT NULL,
	`publish_error` text,
	`acknowledged_at` text,
	`acknowledged_by` text,
	`resolved_at` text,
	`resolved_by` text,
	`note` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`org_id`, `id`)
);
--> statement-breakpoint
CREATE INDEX `alerts_org_created_idx` ON `alerts` (`org_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `alerts_patient_idx` ON `alerts` (`org_id`,`patient_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `alerts_unpublished_idx` ON `alerts` (`published_at`);