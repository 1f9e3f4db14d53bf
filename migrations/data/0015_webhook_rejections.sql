ALTER TABLE `device_webhook_events` ADD `rejected` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `device_webhook_events` ADD `rejections` text;