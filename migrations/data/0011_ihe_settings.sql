CREATE TABLE `ihe_settings` (
	`org_id` text PRIMARY KEY NOT NULL,
	`mhd_strict` integer DEFAULT false NOT NULL,
	`updated_at` text NOT NULL,
	`updated_by` text NOT NULL
);
