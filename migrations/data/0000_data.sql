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
	`raw_key` text,
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
CREATE INDEX `inbound_messages_received_idx` ON `inbound_messages` (`org_id`,`seq`);--> statement-breakpoint
CREATE TABLE `fhir_audit_pending` (
	`org_id` text NOT NULL,
	`id` text NOT NULL,
	`recorded` text NOT NULL,
	`content` text NOT NULL,
	PRIMARY KEY(`org_id`, `id`)
);
--> statement-breakpoint
CREATE TABLE `fhir_compartment` (
	`org_id` text NOT NULL,
	`patient_id` text NOT NULL,
	`resource_type` text NOT NULL,
	`resource_id` text NOT NULL,
	PRIMARY KEY(`org_id`, `patient_id`, `resource_type`, `resource_id`)
);
--> statement-breakpoint
CREATE INDEX `fhir_compartment_owner_idx` ON `fhir_compartment` (`org_id`,`resource_type`,`resource_id`);--> statement-breakpoint
CREATE TABLE `fhir_history` (
	`org_id` text NOT NULL,
	`resource_type` text NOT NULL,
	`id` text NOT NULL,
	`version_id` integer NOT NULL,
	`last_updated` text NOT NULL,
	`deleted` integer DEFAULT 0 NOT NULL,
	`content` text NOT NULL,
	`method` text NOT NULL,
	PRIMARY KEY(`org_id`, `resource_type`, `id`, `version_id`)
);
--> statement-breakpoint
CREATE INDEX `fhir_history_type_updated_idx` ON `fhir_history` (`org_id`,`resource_type`,`last_updated`);--> statement-breakpoint
CREATE INDEX `fhir_history_updated_idx` ON `fhir_history` (`org_id`,`last_updated`);--> statement-breakpoint
CREATE TABLE `fhir_idx_composite` (
	`org_id` text NOT NULL,
	`resource_type` text NOT NULL,
	`resource_id` text NOT NULL,
	`code` text NOT NULL,
	`system1` text NOT NULL,
	`value1` text NOT NULL,
	`system2` text NOT NULL,
	`value2` text NOT NULL,
	`num` real,
	`low` text,
	`high` text
);
--> statement-breakpoint
CREATE INDEX `fhir_idx_composite_value_idx` ON `fhir_idx_composite` (`org_id`,`resource_type`,`code`,`value1`);--> statement-breakpoint
CREATE INDEX `fhir_idx_composite_owner_idx` ON `fhir_idx_composite` (`org_id`,`resource_type`,`resource_id`,`code`);--> statement-breakpoint
CREATE TABLE `fhir_idx_date` (
	`org_id` text NOT NULL,
	`resource_type` text NOT NULL,
	`resource_id` text NOT NULL,
	`code` text NOT NULL,
	`low` text NOT NULL,
	`high` text NOT NULL,
	`single` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fhir_idx_date_low_idx` ON `fhir_idx_date` (`org_id`,`resource_type`,`code`,`low`,`resource_id`,`high`,`single`);--> statement-breakpoint
CREATE INDEX `fhir_idx_date_high_idx` ON `fhir_idx_date` (`org_id`,`resource_type`,`code`,`high`,"resource_id" DESC,`low`,`single`);--> statement-breakpoint
CREATE INDEX `fhir_idx_date_owner_idx` ON `fhir_idx_date` (`org_id`,`resource_type`,`resource_id`,`code`,`low`,`high`);--> statement-breakpoint
CREATE INDEX `fhir_idx_date_wide_low_idx` ON `fhir_idx_date` (`org_id`,`resource_type`,`code`,`low`) WHERE "fhir_idx_date"."single" = 0 OR IFNULL(julianday("fhir_idx_date"."high") - julianday("fhir_idx_date"."low"), 2) > 1;--> statement-breakpoint
CREATE INDEX `fhir_idx_date_wide_high_idx` ON `fhir_idx_date` (`org_id`,`resource_type`,`code`,`high`) WHERE "fhir_idx_date"."single" = 0 OR IFNULL(julianday("fhir_idx_date"."high") - julianday("fhir_idx_date"."low"), 2) > 1;--> statement-breakpoint
CREATE TABLE `fhir_idx_number` (
	`org_id` text NOT NULL,
	`resource_type` text NOT NULL,
	`resource_id` text NOT NULL,
	`code` text NOT NULL,
	`value` real NOT NULL,
	`system` text NOT NULL,
	`unit` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fhir_idx_number_value_idx` ON `fhir_idx_number` (`org_id`,`resource_type`,`code`,`value`);--> statement-breakpoint
CREATE INDEX `fhir_idx_number_owner_idx` ON `fhir_idx_number` (`org_id`,`resource_type`,`resource_id`,`code`,`value`);--> statement-breakpoint
CREATE TABLE `fhir_idx_reference` (
	`org_id` text NOT NULL,
	`resource_type` text NOT NULL,
	`resource_id` text NOT NULL,
	`code` text NOT NULL,
	`target_type` text NOT NULL,
	`target_id` text NOT NULL,
	`url` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fhir_idx_reference_value_idx` ON `fhir_idx_reference` (`org_id`,`resource_type`,`code`,`target_id`,`target_type`);--> statement-breakpoint
CREATE INDEX `fhir_idx_reference_target_idx` ON `fhir_idx_reference` (`org_id`,`target_type`,`target_id`,`resource_type`,`code`);--> statement-breakpoint
CREATE INDEX `fhir_idx_reference_owner_idx` ON `fhir_idx_reference` (`org_id`,`resource_type`,`resource_id`,`code`,`target_type`,`target_id`);--> statement-breakpoint
CREATE TABLE `fhir_idx_string` (
	`org_id` text NOT NULL,
	`resource_type` text NOT NULL,
	`resource_id` text NOT NULL,
	`code` text NOT NULL,
	`value` text NOT NULL,
	`value_norm` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fhir_idx_string_value_idx` ON `fhir_idx_string` (`org_id`,`resource_type`,`code`,`value_norm`);--> statement-breakpoint
CREATE INDEX `fhir_idx_string_owner_idx` ON `fhir_idx_string` (`org_id`,`resource_type`,`resource_id`,`code`,`value_norm`,`value`);--> statement-breakpoint
CREATE TABLE `fhir_idx_token` (
	`org_id` text NOT NULL,
	`resource_type` text NOT NULL,
	`resource_id` text NOT NULL,
	`code` text NOT NULL,
	`system` text NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fhir_idx_token_value_idx` ON `fhir_idx_token` (`org_id`,`resource_type`,`code`,`value`,`system`);--> statement-breakpoint
CREATE INDEX `fhir_idx_token_owner_idx` ON `fhir_idx_token` (`org_id`,`resource_type`,`resource_id`,`code`,`value`,`system`);--> statement-breakpoint
CREATE TABLE `fhir_idx_uri` (
	`org_id` text NOT NULL,
	`resource_type` text NOT NULL,
	`resource_id` text NOT NULL,
	`code` text NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fhir_idx_uri_value_idx` ON `fhir_idx_uri` (`org_id`,`resource_type`,`code`,`value`);--> statement-breakpoint
CREATE INDEX `fhir_idx_uri_owner_idx` ON `fhir_idx_uri` (`org_id`,`resource_type`,`resource_id`,`code`,`value`);--> statement-breakpoint
CREATE TABLE `fhir_resources` (
	`org_id` text NOT NULL,
	`resource_type` text NOT NULL,
	`id` text NOT NULL,
	`version_id` integer NOT NULL,
	`last_updated` text NOT NULL,
	`deleted` integer DEFAULT 0 NOT NULL,
	`content` text NOT NULL,
	PRIMARY KEY(`org_id`, `resource_type`, `id`)
);
--> statement-breakpoint
CREATE INDEX `fhir_resources_type_updated_idx` ON `fhir_resources` (`org_id`,`resource_type`,`last_updated`,`id`);--> statement-breakpoint
CREATE INDEX `fhir_resources_updated_idx` ON `fhir_resources` (`org_id`,`last_updated`,`resource_type`,`id`);