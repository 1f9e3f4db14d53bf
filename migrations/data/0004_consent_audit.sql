CREATE TABLE `consent_policies` (
	`org_id` text PRIMARY KEY NOT NULL,
	`default_policy` text NOT NULL,
	`enforce_outbound` integer NOT NULL,
	`updated_at` text NOT NULL,
	`updated_by` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `audit_settings` (
	`org_id` text PRIMARY KEY NOT NULL,
	`retention_days` integer,
	`updated_at` text NOT NULL,
	`updated_by` text NOT NULL
);
