CREATE TABLE `inbound_messages` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`org_id` text NOT NULL,
	`protocol` text NOT NULL,
	`client_id` text,
	`sender` text,
	`control_id` text,
	`message_type` text,
	`trigger_event` text,
	`version` text,
	`raw` text NOT NULL,
	`status` text NOT NULL,
	`received_at` text NOT NULL,
	`source` text,
	`executions` text DEFAULT '[]' NOT NULL,
	`resources` text DEFAULT '[]' NOT NULL,
	`error` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `inbound_messages_org_id_uq` ON `inbound_messages` (`org_id`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `inbound_messages_dedupe_uq` ON `inbound_messages` (`org_id`,`protocol`,`sender`,`control_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `inbound_messages_client_uq` ON `inbound_messages` (`org_id`,`client_id`);--> statement-breakpoint
CREATE INDEX `inbound_messages_sender_status_idx` ON `inbound_messages` (`org_id`,`sender`,`status`,`seq`);--> statement-breakpoint
CREATE INDEX `inbound_messages_received_idx` ON `inbound_messages` (`org_id`,`seq`);