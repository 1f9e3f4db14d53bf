CREATE TABLE `device_source_priorities` (
	`org_id` text PRIMARY KEY NOT NULL,
	`priorities` text NOT NULL,
	`updated_at` text NOT NULL,
	`updated_by` text NOT NULL
);
