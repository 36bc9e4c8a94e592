-- +goose Up
-- Search compares Unicode case-folded text; migration 5 (a Go migration, refoldSearchText in
-- searchtext.go) re-rendered records.search_text from each record's details before this file.
--
-- A full-text index with the trigram tokenizer finds the rows that contain a search value's
-- trigrams (any substring of three characters or more) without reading every record; the exact
-- check (svc_field_match) then runs on those rows only. It indexes search_text and record_name
-- of records (external content: the text is not stored twice), keyed by the records' rowid,
-- and triggers keep it in step with every write. The tokenizer's own case folding is harmless:
-- search_text is folded already, record names are ASCII, and a per-character mapping applied
-- to both the text and the query cannot lose a match.
CREATE VIRTUAL TABLE records_fts USING fts5(search_text, record_name, content='records', content_rowid='rowid', tokenize='trigram');
-- +goose StatementBegin
CREATE TRIGGER records_fts_insert AFTER INSERT ON records BEGIN
    INSERT INTO records_fts (rowid, search_text, record_name) VALUES (new.rowid, new.search_text, new.record_name); END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER records_fts_update AFTER UPDATE OF search_text, record_name ON records BEGIN
    INSERT INTO records_fts (records_fts, rowid, search_text, record_name) VALUES ('delete', old.rowid, old.search_text, old.record_name); INSERT INTO records_fts (rowid, search_text, record_name) VALUES (new.rowid, new.search_text, new.record_name); END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER records_fts_delete AFTER DELETE ON records BEGIN
    INSERT INTO records_fts (records_fts, rowid, search_text, record_name) VALUES ('delete', old.rowid, old.search_text, old.record_name); END;
-- +goose StatementEnd
INSERT INTO records_fts (records_fts) VALUES ('rebuild');
