DROP INDEX `fhir_idx_date_low_idx`;--> statement-breakpoint
DROP INDEX `fhir_idx_date_high_idx`;--> statement-breakpoint
ALTER TABLE `fhir_idx_date` ADD `single` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Existing rows: single = 1 where the row is its resource's only value for the parameter
-- (0, the default, is always correct but makes sort-ordered scans probe).
UPDATE `fhir_idx_date` SET `single` = 1 WHERE NOT EXISTS (SELECT 1 FROM `fhir_idx_date` o INDEXED BY `fhir_idx_date_owner_idx` WHERE o.`org_id` = `fhir_idx_date`.`org_id` AND o.`resource_type` = `fhir_idx_date`.`resource_type` AND o.`resource_id` = `fhir_idx_date`.`resource_id` AND o.`code` = `fhir_idx_date`.`code` AND o.rowid <> `fhir_idx_date`.rowid);--> statement-breakpoint
CREATE INDEX `fhir_idx_date_wide_low_idx` ON `fhir_idx_date` (`org_id`,`resource_type`,`code`,`low`) WHERE "fhir_idx_date"."single" = 0 OR IFNULL(julianday("fhir_idx_date"."high") - julianday("fhir_idx_date"."low"), 2) > 1;--> statement-breakpoint
CREATE INDEX `fhir_idx_date_wide_high_idx` ON `fhir_idx_date` (`org_id`,`resource_type`,`code`,`high`) WHERE "fhir_idx_date"."single" = 0 OR IFNULL(julianday("fhir_idx_date"."high") - julianday("fhir_idx_date"."low"), 2) > 1;--> statement-breakpoint
CREATE INDEX `fhir_idx_date_low_idx` ON `fhir_idx_date` (`org_id`,`resource_type`,`code`,`low`,`resource_id`,`high`,`single`);--> statement-breakpoint
CREATE INDEX `fhir_idx_date_high_idx` ON `fhir_idx_date` (`org_id`,`resource_type`,`code`,`high`,"resource_id" DESC,`low`,`single`);