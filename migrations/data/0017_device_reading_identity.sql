CREATE TABLE `device_reading_moves` (
	`org_id` text NOT NULL,
	`observation_id` text NOT NULL,
	`version_id` integer NOT NULL,
	`from_patient_id` text NOT NULL,
	`to_patient_id` text NOT NULL,
	`from_device_id` text,
	`to_device_id` text,
	`moved_at` text NOT NULL,
	`found_at` text NOT NULL,
	`restored_observation_id` text,
	`restored_at` text,
	PRIMARY KEY(`org_id`, `observation_id`, `version_id`)
);
--> statement-breakpoint
-- Data: readings are keyed by their device link from now on (features/devices/reading.ts,
-- docs/devices.md "Reading identity"). First, report what the old key (platform|record|metric)
-- let happen: a reading's Observation whose subject another patient's reading replaced. Each
-- version whose subject differs from the version before it is one move.
INSERT OR IGNORE INTO `device_reading_moves` (`org_id`, `observation_id`, `version_id`, `from_patient_id`, `to_patient_id`, `from_device_id`, `to_device_id`, `moved_at`, `found_at`)
SELECT h.`org_id`, h.`id`, h.`version_id`,
  substr(json_extract(p.`content`, '$.subject.reference'), 9),
  substr(json_extract(h.`content`, '$.subject.reference'), 9),
  substr(json_extract(p.`content`, '$.device.reference'), 8),
  substr(json_extract(h.`content`, '$.device.reference'), 8),
  h.`last_updated`, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
FROM `fhir_history` h
JOIN `fhir_history` p ON p.`org_id` = h.`org_id` AND p.`resource_type` = h.`resource_type` AND p.`id` = h.`id` AND p.`version_id` = h.`version_id` - 1
WHERE h.`resource_type` = 'Observation' AND h.`deleted` = 0 AND p.`deleted` = 0
  AND json_extract(h.`content`, '$.identifier[0].system') = 'urn:cdis:device-reading'
  AND json_extract(p.`content`, '$.subject.reference') LIKE 'Patient/%'
  AND json_extract(h.`content`, '$.subject.reference') IS NOT json_extract(p.`content`, '$.subject.reference');
--> statement-breakpoint
-- Then every current reading Observation's identifier gains its device: platform|record|metric
-- becomes platform|device|record|metric (the device its Observation names), in the resource, in
-- the history row of its current version (a vread of it reads the same) and in the token index,
-- so a redelivered reading meets its Observation as before. Older versions keep what they said.
UPDATE `fhir_resources`
SET `content` = json_set(`content`, '$.identifier[0].value',
  substr(json_extract(`content`, '$.identifier[0].value'), 1, instr(json_extract(`content`, '$.identifier[0].value'), '|'))
  || substr(json_extract(`content`, '$.device.reference'), 8) || '|'
  || substr(json_extract(`content`, '$.identifier[0].value'), instr(json_extract(`content`, '$.identifier[0].value'), '|') + 1))
WHERE `resource_type` = 'Observation' AND `deleted` = 0
  AND json_extract(`content`, '$.identifier[0].system') = 'urn:cdis:device-reading'
  AND json_extract(`content`, '$.device.reference') LIKE 'Device/%'
  AND instr(json_extract(`content`, '$.identifier[0].value'), '|' || substr(json_extract(`content`, '$.device.reference'), 8) || '|') = 0;
--> statement-breakpoint
UPDATE `fhir_history`
SET `content` = (SELECT r.`content` FROM `fhir_resources` r WHERE r.`org_id` = `fhir_history`.`org_id` AND r.`resource_type` = 'Observation' AND r.`id` = `fhir_history`.`id`)
WHERE `resource_type` = 'Observation' AND `deleted` = 0
  AND json_extract(`content`, '$.identifier[0].system') = 'urn:cdis:device-reading'
  AND `version_id` = (SELECT r.`version_id` FROM `fhir_resources` r WHERE r.`org_id` = `fhir_history`.`org_id` AND r.`resource_type` = 'Observation' AND r.`id` = `fhir_history`.`id` AND r.`deleted` = 0);
--> statement-breakpoint
UPDATE `fhir_idx_token`
SET `value` = (SELECT json_extract(r.`content`, '$.identifier[0].value') FROM `fhir_resources` r WHERE r.`org_id` = `fhir_idx_token`.`org_id` AND r.`resource_type` = 'Observation' AND r.`id` = `fhir_idx_token`.`resource_id`)
WHERE `resource_type` = 'Observation' AND `code` = 'identifier' AND `system` = 'urn:cdis:device-reading'
  AND EXISTS (SELECT 1 FROM `fhir_resources` r WHERE r.`org_id` = `fhir_idx_token`.`org_id` AND r.`resource_type` = 'Observation' AND r.`id` = `fhir_idx_token`.`resource_id` AND r.`deleted` = 0
    AND json_extract(r.`content`, '$.identifier[0].system') = 'urn:cdis:device-reading');
