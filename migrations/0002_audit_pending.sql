CREATE TABLE `fhir_audit_pending` (
	`org_id` text NOT NULL,
	`id` text NOT NULL,
	`recorded` text NOT NULL,
	`content` text NOT NULL,
	PRIMARY KEY(`org_id`, `id`)
);
