DROP INDEX `fhir_idx_reference_value_idx`;--> statement-breakpoint
CREATE INDEX `fhir_idx_reference_value_idx` ON `fhir_idx_reference` (`org_id`,`resource_type`,`code`,`target_id`,`target_type`,`resource_id`);--> statement-breakpoint
DROP INDEX `fhir_idx_token_value_idx`;--> statement-breakpoint
CREATE INDEX `fhir_idx_token_value_idx` ON `fhir_idx_token` (`org_id`,`resource_type`,`code`,`value`,`system`,`resource_id`);