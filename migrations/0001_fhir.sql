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
	`high` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `fhir_idx_date_low_idx` ON `fhir_idx_date` (`org_id`,`resource_type`,`code`,`low`);--> statement-breakpoint
CREATE INDEX `fhir_idx_date_high_idx` ON `fhir_idx_date` (`org_id`,`resource_type`,`code`,`high`);--> statement-breakpoint
CREATE INDEX `fhir_idx_date_owner_idx` ON `fhir_idx_date` (`org_id`,`resource_type`,`resource_id`,`code`,`low`,`high`);--> statement-breakpoint
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
CREATE INDEX `fhir_resources_type_updated_idx` ON `fhir_resources` (`org_id`,`resource_type`,`last_updated`);