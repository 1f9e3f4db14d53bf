CREATE TABLE `agent_turns` (
	`org_id` text NOT NULL,
	`id` text NOT NULL,
	`agent_id` text NOT NULL,
	`conversation_id` text,
	`key_id` text NOT NULL,
	`model` text NOT NULL,
	`status` text NOT NULL,
	`error_code` text,
	`error_message` text,
	`input_tokens` integer NOT NULL,
	`output_tokens` integer NOT NULL,
	`usage_reported` integer NOT NULL,
	`steps` integer NOT NULL,
	`tool_calls` integer NOT NULL,
	`tool_errors` integer NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`org_id`, `id`)
);
--> statement-breakpoint
CREATE INDEX `agent_turns_org_agent_created_idx` ON `agent_turns` (`org_id`,`agent_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `consent_policies` ADD `enforce_reads` integer DEFAULT false NOT NULL;