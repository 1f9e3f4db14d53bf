DROP INDEX `fhir_idx_string_value_idx`;--> statement-breakpoint
CREATE INDEX `fhir_idx_string_value_idx` ON `fhir_idx_string` (`org_id`,`resource_type`,`code`,`value_norm`,`resource_id`,`value`);