-- Turns (issue 45): where each turn of a context is and how it ended, so
-- `GET /v1/contexts/{id}/turns/{turn_id}` answers after a restart. One row per turn, written when
-- it ends; removed with its context.
CREATE TABLE turns (
    context_id BLOB NOT NULL REFERENCES contexts (id) ON DELETE CASCADE,
    turn_id    BLOB NOT NULL,
    record     TEXT NOT NULL,
    PRIMARY KEY (context_id, turn_id)
);
