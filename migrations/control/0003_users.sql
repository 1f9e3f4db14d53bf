CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`email` text NOT NULL,
	`name` text NOT NULL,
	`role` text NOT NULL,
	`fhir_user` text,
	`status` text NOT NULL,
	`password_hash` text,
	`invitation_hash` text,
	`invitation_expires_at` text,
	`failed_sign_ins` integer DEFAULT 0 NOT NULL,
	`locked_until` text,
	`last_sign_in_at` text,
	`created_at` text NOT NULL,
	`created_by` text,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_org_email_uq` ON `users` (`org_id`,`email`);--> statement-breakpoint
CREATE UNIQUE INDEX `users_invitation_uq` ON `users` (`invitation_hash`);--> statement-breakpoint
CREATE INDEX `users_org_created_idx` ON `users` (`org_id`,`created_at`);--> statement-breakpoint
PRAGMA defer_foreign_keys=ON;--> statement-breakpoint
CREATE TABLE `__new_console_sessions` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`key_id` text,
	`user_id` text,
	`created_at` text NOT NULL,
	`last_seen_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`revoked_at` text,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `__new_console_sessions`("id_hash", "org_id", "key_id", "user_id", "created_at", "last_seen_at", "expires_at", "revoked_at") SELECT "id_hash", "org_id", "key_id", NULL, "created_at", "last_seen_at", "expires_at", "revoked_at" FROM `console_sessions`;--> statement-breakpoint
DROP TABLE `console_sessions`;--> statement-breakpoint
ALTER TABLE `__new_console_sessions` RENAME TO `console_sessions`;--> statement-breakpoint
PRAGMA defer_foreign_keys=OFF;--> statement-breakpoint
CREATE INDEX `console_sessions_key_idx` ON `console_sessions` (`key_id`);--> statement-breakpoint
CREATE INDEX `console_sessions_user_idx` ON `console_sessions` (`user_id`);