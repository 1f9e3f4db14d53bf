ALTER TABLE `api_keys` ADD `owner_user_id` text;--> statement-breakpoint
CREATE INDEX `api_keys_org_owner_idx` ON `api_keys` (`org_id`,`owner_user_id`);