-- +goose Up
-- Drafts are private (docs/lifecycle.md): the counts anyone sees leave them out. A registry
-- keeps how many of its records are drafts beside how many it holds (record_count - draft_count
-- is what its answers show), and the platform's record counter counts a record once it is
-- public (added live, or published), so drafts counted before are taken out of it.
ALTER TABLE registries ADD COLUMN draft_count BIGINT NOT NULL DEFAULT 0;
UPDATE registries SET draft_count = (SELECT COUNT(*) FROM records r WHERE r.registry_id = registries.registry_id AND r.state = 'draft');
UPDATE svc_counters SET n = n - (SELECT COUNT(*) FROM records WHERE state = 'draft') WHERE name = 'records' AND shard = 0;
