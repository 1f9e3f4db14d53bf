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
CREATE INDEX `agents_org_project_idx` ON `agents` (`org_id`,`project_id`);--> statement-breakpoint
CREATE TABLE `connectors` (
	`org_id` text NOT NULL,
	`id` text NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`endpoint` text NOT NULL,
	`auth` text NOT NULL,
	`credentials_enc` text,
	`credentials_masked` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`org_id`, `id`)
);
--> statement-breakpoint
CREATE INDEX `connectors_org_created_idx` ON `connectors` (`org_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `executions` (
	`org_id` text NOT NULL,
	`id` text NOT NULL,
	`pipeline_id` text NOT NULL,
	`pipeline_version` integer NOT NULL,
	`status` text NOT NULL,
	`trigger` text NOT NULL,
	`test_mode` integer NOT NULL,
	`mode` text NOT NULL,
	`retry_of` text,
	`retry_from_node` text,
	`idempotency_key` text,
	`started_at` text NOT NULL,
	`finished_at` text,
	`duration_ms` integer,
	`error_code` text,
	`error_message` text,
	`error_node_id` text,
	`error_node_type` text,
	`record` text,
	`record_key` text,
	PRIMARY KEY(`org_id`, `id`)
);
--> statement-breakpoint
CREATE INDEX `executions_org_started_idx` ON `executions` (`org_id`,`started_at`);--> statement-breakpoint
CREATE INDEX `executions_org_pipeline_idx` ON `executions` (`org_id`,`pipeline_id`,`started_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `executions_org_idem_uq` ON `executions` (`org_id`,`pipeline_id`,`idempotency_key`);--> statement-breakpoint
CREATE TABLE `pipeline_triggers` (
	`org_id` text NOT NULL,
	`pipeline_id` text NOT NULL,
	`node_id` text NOT NULL,
	`kind` text NOT NULL,
	`match` text DEFAULT '' NOT NULL,
	`attributes` text DEFAULT '{}' NOT NULL,
	PRIMARY KEY(`org_id`, `pipeline_id`, `node_id`)
);
--> statement-breakpoint
CREATE INDEX `pipeline_triggers_kind_idx` ON `pipeline_triggers` (`kind`,`org_id`,`match`);--> statement-breakpoint
CREATE TABLE `pipeline_versions` (
	`org_id` text NOT NULL,
	`pipeline_id` text NOT NULL,
	`version` integer NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`definition` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`org_id`, `pipeline_id`, `version`)
);
--> statement-breakpoint
CREATE TABLE `pipelines` (
	`org_id` text NOT NULL,
	`id` text NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`status` text NOT NULL,
	`version` integer NOT NULL,
	`deployed_version` integer,
	`definition` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`org_id`, `id`)
);
--> statement-breakpoint
CREATE INDEX `pipelines_org_created_idx` ON `pipelines` (`org_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `tools` (
	`org_id` text NOT NULL,
	`id` text NOT NULL,
	`name` text NOT NULL,
	`description` text NOT NULL,
	`parameters` text NOT NULL,
	`implementation` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`org_id`, `id`)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tools_org_name_uq` ON `tools` (`org_id`,`name`);--> statement-breakpoint
CREATE TABLE `inbound_messages` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`org_id` text NOT NULL,
	`protocol` text NOT NULL,
	`client_id` text,
	`sender` text,
	`control_id` text,
	`message_type` text,
	`trigger_event` text,
	`version` text,
	`raw` text NOT NULL,
	`status` text NOT NULL,
	`received_at` text NOT NULL,
	`source` text,
	`executions` text DEFAULT '[]' NOT NULL,
	`resources` text DEFAULT '[]' NOT NULL,
	`error` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `inbound_messages_org_id_uq` ON `inbound_messages` (`org_id`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `inbound_messages_dedupe_uq` ON `inbound_messages` (`org_id`,`protocol`,`sender`,`control_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `inbound_messages_client_uq` ON `inbound_messages` (`org_id`,`client_id`);--> statement-breakpoint
CREATE INDEX `inbound_messages_sender_status_idx` ON `inbound_messages` (`org_id`,`sender`,`status`,`seq`);--> statement-breakpoint
CREATE INDEX `inbound_messages_received_idx` ON `inbound_messages` (`org_id`,`seq`);