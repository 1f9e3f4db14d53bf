CREATE TABLE `sso_sessions` (
	`session_hash` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`idp_id` text NOT NULL,
	`id_token_enc` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sso_sessions_org_expiry_idx` ON `sso_sessions` (`org_id`,`expires_at`);--> statement-breakpoint
CREATE INDEX `sso_sessions_idp_idx` ON `sso_sessions` (`idp_id`);--> statement-breakpoint
-- Several identity providers per organization (issue #34): the table is keyed by an id of its own,
-- and each organization's one row keeps its configuration under a new id.
PRAGMA defer_foreign_keys=ON;--> statement-breakpoint
CREATE TABLE `__new_identity_providers` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
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
INSERT INTO `__new_identity_providers`("id", "org_id", "display_name", "issuer", "client_id", "client_secret_enc", "client_secret_hint", "scopes", "email_claim", "role_mapping", "allowed_domains", "jit_provisioning", "enabled", "created_at", "updated_at", "updated_by") SELECT 'idp_' || lower(hex(randomblob(16))), "org_id", "display_name", "issuer", "client_id", "client_secret_enc", "client_secret_hint", "scopes", "email_claim", "role_mapping", "allowed_domains", "jit_provisioning", "enabled", "created_at", "updated_at", "updated_by" FROM `identity_providers`;--> statement-breakpoint
DROP TABLE `identity_providers`;--> statement-breakpoint
ALTER TABLE `__new_identity_providers` RENAME TO `identity_providers`;--> statement-breakpoint
PRAGMA defer_foreign_keys=OFF;--> statement-breakpoint
CREATE INDEX `identity_providers_org_idx` ON `identity_providers` (`org_id`,`created_at`);--> statement-breakpoint
-- A pending sign-in started before: bound to its organization's identity provider, the only one it had.
ALTER TABLE `sso_states` ADD `idp_id` text NOT NULL DEFAULT '';--> statement-breakpoint
UPDATE `sso_states` SET `idp_id` = coalesce((SELECT `id` FROM `identity_providers` WHERE `identity_providers`.`org_id` = `sso_states`.`org_id`), '');
