CREATE TABLE `copilot_suggestions` (
	`org_id` text NOT NULL,
	`id` text NOT NULL,
	`pipeline_id` text NOT NULL,
	`base_version` integer NOT NULL,
	`kind` text NOT NULL,
	`title` text NOT NULL,
	`rationale` text NOT NULL,
	`patch` text NOT NULL,
	`status` text NOT NULL,
	`applied_version` integer,
	`created_by` text,
	`created_at` text NOT NULL,
	`applied_at` text,
	PRIMARY KEY(`org_id`, `id`)
);
--> statement-breakpoint
CREATE INDEX `copilot_suggestions_org_pipeline_idx` ON `copilot_suggestions` (`org_id`,`pipeline_id`,`created_at`);