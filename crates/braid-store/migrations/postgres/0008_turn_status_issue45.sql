-- Turn status (issue 45): where each turn is (`queued`, `running`, `completed`) as a column of
-- its own, kept in step with the record on every save, so the turns a crash cut short are found
-- by an index instead of a text search of the records. Rows saved before it take the status
-- their record holds.
ALTER TABLE turns ADD COLUMN status TEXT NOT NULL DEFAULT 'completed';
UPDATE turns SET status = record::jsonb ->> 'status';
CREATE INDEX turns_running ON turns (context_id) WHERE status = 'running';
