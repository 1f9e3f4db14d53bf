CREATE TABLE `node_files` (
	`org_id` text NOT NULL,
	`key` text NOT NULL,
	`id` text NOT NULL,
	`bytes` integer NOT NULL,
	`content_type` text NOT NULL,
	`pipeline_id` text,
	`execution_id` text,
	`node_id` text,
	`created_at` text NOT NULL,
	PRIMARY KEY(`org_id`, `key`)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `node_files_org_id_idx` ON `node_files` (`org_id`,`id`);--> statement-breakpoint
CREATE INDEX `node_files_org_created_idx` ON `node_files` (`org_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `node_files_org_execution_idx` ON `node_files` (`org_id`,`execution_id`);--> statement-breakpoint
CREATE INDEX `node_files_org_pipeline_idx` ON `node_files` (`org_id`,`pipeline_id`,`created_at`);