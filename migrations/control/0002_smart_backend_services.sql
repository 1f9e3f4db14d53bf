CREATE TABLE `client_applications` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`jwks` text,
	`jwks_url` text,
	`scopes` text NOT NULL,
	`status` text NOT NULL,
	`created_at` text NOT NULL,
	`created_by` text,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `client_applications_org_created_idx` ON `client_applications` (`org_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `smart_assertion_jtis` (
	`client_id` text NOT NULL,
	`jti` text NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`client_id`, `jti`)
);
--> statement-breakpoint
CREATE INDEX `smart_assertion_jtis_exp_idx` ON `smart_assertion_jtis` (`expires_at`);--> statement-breakpoint
CREATE TABLE `smart_signing_keys` (
	`kid` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`alg` text NOT NULL,
	`private_jwk` text NOT NULL,
	`public_jwk` text NOT NULL,
	`created_at` text NOT NULL,
	`retired_at` text,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `smart_signing_keys_org_idx` ON `smart_signing_keys` (`org_id`,`created_at`);