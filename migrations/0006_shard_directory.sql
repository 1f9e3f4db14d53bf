ALTER TABLE `organizations` ADD `shard` text DEFAULT 'SHARD_0' NOT NULL;--> statement-breakpoint
ALTER TABLE `organizations` ADD `moving_to` text;