-- What the model saw (issue 42): one row per request sent to the model, a compact description
-- (`ModelRequestRecord` as JSON: message ids and token counts, never copies of the messages).
-- Kept apart from the messages so that loading a branch never reads them.
CREATE TABLE model_requests (
    context_id BLOB NOT NULL REFERENCES contexts (id) ON DELETE CASCADE,
    id         BLOB NOT NULL,
    branch     TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    record     TEXT NOT NULL,
    PRIMARY KEY (context_id, id)
);
CREATE INDEX model_requests_by_time ON model_requests (context_id, created_ms);
