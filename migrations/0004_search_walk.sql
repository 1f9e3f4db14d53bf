DROP INDEX `fhir_resources_type_updated_idx`;--> statement-breakpoint
CREATE INDEX `fhir_resources_updated_idx` ON `fhir_resources` (`org_id`,`last_updated`,`resource_type`,`id`);--> statement-breakpoint
CREATE INDEX `fhir_resources_type_updated_idx` ON `fhir_resources` (`org_id`,`resource_type`,`last_updated`,`id`);