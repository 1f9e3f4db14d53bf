CREATE TABLE `smart_authorizations` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`client_id` text NOT NULL,
	`user_id` text NOT NULL,
	`session_hash` text NOT NULL,
	`csrf_hash` text NOT NULL,
	`redirect_uri` text NOT NULL,
	`state` text,
	`scopes` text NOT NULL,
	`code_challenge` text NOT NULL,
	`nonce` text,
	`patient` text,
	`encounter` text,
	`ehr_launch` integer DEFAULT false NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` text NOT NULL,
	`decided_at` text,
	`code_hash` text,
	`exchanged_at` text,
	`grant_id` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `smart_authorizations_code_uq` ON `smart_authorizations` (`code_hash`);--> statement-breakpoint
CREATE INDEX `smart_authorizations_exp_idx` ON `smart_authorizations` (`expires_at`);--> statement-breakpoint
CREATE TABLE `smart_grants` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`client_id` text NOT NULL,
	`user_id` text NOT NULL,
	`session_hash` text,
	`scopes` text NOT NULL,
	`patient` text,
	`encounter` text,
	`fhir_user` text,
	`created_at` text NOT NULL,
	`revoked_at` text,
	`revoked_reason` text
);
--> statement-breakpoint
CREATE INDEX `smart_grants_org_user_idx` ON `smart_grants` (`org_id`,`user_id`);--> statement-breakpoint
CREATE TABLE `smart_launches` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`client_id` text NOT NULL,
	`patient` text NOT NULL,
	`encounter` text,
	`created_by` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` text
);
--> statement-breakpoint
CREATE INDEX `smart_launches_exp_idx` ON `smart_launches` (`expires_at`);--> statement-breakpoint
CREATE TABLE `smart_refresh_tokens` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`grant_id` text NOT NULL,
	`org_id` text NOT NULL,
	`client_id` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` text
);
--> statement-breakpoint
CREATE INDEX `smart_refresh_tokens_grant_idx` ON `smart_refresh_tokens` (`grant_id`);--> statement-breakpoint
ALTER TABLE `client_applications` ADD `type` text DEFAULT 'confidential' NOT NULL;--> statement-breakpoint
ALTER TABLE `client_applications` ADD `secret_hash` text;--> statement-breakpoint
ALTER TABLE `client_applications` ADD `secret_created_at` text;--> statement-breakpoint
ALTER TABLE `client_applications` ADD `redirect_uris` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `client_applications` ADD `grant_types` text DEFAULT '["client_credentials"]' NOT NULL;--> statement-breakpoint
ALTER TABLE `client_applications` ADD `launch_uri` text;