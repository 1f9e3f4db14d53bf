CREATE TABLE `access_policies` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`resources` text NOT NULL,
	`created_at` text NOT NULL,
	`created_by` text,
	`updated_at` text NOT NULL,
	`updated_by` text
);
--> statement-breakpoint
CREATE INDEX `access_policies_org_created_idx` ON `access_policies` (`org_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `api_keys` ADD `access_policy_id` text;--> statement-breakpoint
ALTER TABLE `users` ADD `access_policy_id` text;--> statement-breakpoint
ALTER TABLE `client_applications` ADD `access_policy_id` text;