CREATE TABLE `identity_providers` (
	`org_id` text PRIMARY KEY NOT NULL,
	`display_name` text NOT NULL,
	`issuer` text NOT NULL,
	`client_id` text NOT NULL,
	`client_secret_enc` text NOT NULL,
	`client_secret_hint` text NOT NULL,
	`scopes` text NOT NULL,
	`email_claim` text NOT NULL,
	`role_mapping` text NOT NULL,
	`allowed_domains` text NOT NULL,
	`jit_provisioning` integer NOT NULL,
	`enabled` integer NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`updated_by` text,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `sso_states` (
	`state_hash` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`browser_hash` text NOT NULL,
	`issuer` text NOT NULL,
	`client_id` text NOT NULL,
	`secrets_enc` text NOT NULL,
	`redirect_uri` text NOT NULL,
	`return_to` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sso_states_org_expiry_idx` ON `sso_states` (`org_id`,`expires_at`);--> statement-breakpoint
ALTER TABLE `users` ADD `last_sign_in_method` text;--> statement-breakpoint
ALTER TABLE `users` ADD `identity_provider` text;--> statement-breakpoint
ALTER TABLE `users` ADD `external_subject` text;--> statement-breakpoint
CREATE UNIQUE INDEX `users_org_subject_uq` ON `users` (`org_id`,`identity_provider`,`external_subject`);