-- The event log in the order events are committed, with its (context, sequence) key as an
-- index (issue 19). Keyed by context without a rowid, a batch of a thousand streams' events
-- landed on as many leaves of a tree of whole events, which split as they filled: in a
-- simulation, 2.2 WAL pages written per event for batches of 150 contexts, against 0.7 when
-- events are appended by rowid and only the small index entries land apart. Under
-- `braid-load --contexts 1000`, WAL writes fell from 71k to 46k and SQLite's share of the run's
-- CPU from 13.9% to 9.9%.
CREATE TABLE events_in_commit_order (
    context_id BLOB NOT NULL,
    seq        INTEGER NOT NULL,
    event      TEXT NOT NULL,
    created_at TEXT NOT NULL
);

INSERT INTO events_in_commit_order (context_id, seq, event, created_at)
SELECT context_id, seq, event, created_at FROM events ORDER BY created_at, context_id, seq;

DROP TABLE events;

ALTER TABLE events_in_commit_order RENAME TO events;

CREATE UNIQUE INDEX events_by_context ON events (context_id, seq);
