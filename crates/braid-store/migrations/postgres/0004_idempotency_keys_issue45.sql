-- Answers of requests sent with an `Idempotency-Key` header (IETF httpapi draft), so a client
-- that retries gets the first answer instead of the work done twice. A row is claimed (no
-- status yet) before its request runs and holds the answer after; the server removes rows
-- older than a day and keeps their number bounded.
CREATE TABLE idempotency_keys (
    scope        TEXT NOT NULL,
    key          TEXT NOT NULL,
    fingerprint  TEXT NOT NULL,
    status       INTEGER,
    content_type TEXT,
    body         BYTEA,
    created_ms   BIGINT NOT NULL,
    PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_ms);
