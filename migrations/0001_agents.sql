CREATE TABLE `agent_conversations` (
	`org_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`id` text NOT NULL,
	`title` text DEFAULT '' NOT NULL,
	`created_by` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`message_count` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`org_id`, `agent_id`, `id`)
);
--> statement-breakpoint
CREATE INDEX `agent_conversations_org_agent_updated_idx` ON `agent_conversations` (`org_id`,`agent_id`,`updated_at`);--> statement-breakpoint
CREATE TABLE `agent_versions` (
	`org_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`version` integer NOT NULL,
	`snapshot` text NOT NULL,
	`note` text,
	`created_at` text NOT NULL,
	`created_by` text,
	PRIMARY KEY(`org_id`, `agent_id`, `version`)
);
--> statement-breakpoint
CREATE TABLE `agents` (
	`org_id` text NOT NULL,
	`id` text NOT NULL,
	`name` text NOT NULL,
	`agent_type` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`status` text NOT NULL,
	`deployed` integer DEFAULT false NOT NULL,
	`deployed_at` text,
	`project_id` text,
	`model_config` text NOT NULL,
	`system_prompt` text DEFAULT '' NOT NULL,
	`prompt_template` text NOT NULL,
	`tools` text DEFAULT '[]' NOT NULL,
	`template_id` text,
	`version` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`org_id`, `id`)
);
--> statement-breakpoint
CREATE INDEX `agents_org_created_idx` ON `agents` (`org_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `agents_org_type_idx` ON `agents` (`org_id`,`agent_type`);--> statement-breakpoint
CREATE INDEX `agents_org_project_idx` ON `agents` (`org_id`,`project_id`);