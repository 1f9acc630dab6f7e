-- Braid's schema for SQLite. Ids are UUIDs stored as 16-byte blobs; JSON is stored as text,
-- exactly as written, so that a message of an unknown kind is kept byte for byte.

CREATE TABLE contexts (
    id            BLOB PRIMARY KEY NOT NULL,
    title         TEXT NOT NULL,
    config        TEXT NOT NULL,
    active_branch TEXT NOT NULL,
    state         TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
);

CREATE TABLE branches (
    context_id    BLOB NOT NULL REFERENCES contexts (id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    system_prompt TEXT,
    pipeline      TEXT,
    parent        TEXT,
    fork_point    BLOB,
    created_at    TEXT NOT NULL,
    PRIMARY KEY (context_id, name)
);

CREATE TABLE messages (
    context_id BLOB NOT NULL REFERENCES contexts (id) ON DELETE CASCADE,
    id         BLOB NOT NULL,
    role       TEXT NOT NULL,
    kind       TEXT NOT NULL,
    status     TEXT NOT NULL,
    payload    TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (context_id, id)
);

CREATE TABLE branch_messages (
    context_id BLOB NOT NULL,
    branch     TEXT NOT NULL,
    position   INTEGER NOT NULL,
    message_id BLOB NOT NULL,
    PRIMARY KEY (context_id, branch, position),
    FOREIGN KEY (context_id, branch) REFERENCES branches (context_id, name) ON DELETE CASCADE,
    FOREIGN KEY (context_id, message_id) REFERENCES messages (context_id, id) ON DELETE CASCADE
) WITHOUT ROWID;

CREATE UNIQUE INDEX branch_messages_once ON branch_messages (context_id, branch, message_id);
CREATE INDEX branch_messages_by_message ON branch_messages (context_id, message_id);

CREATE TABLE events (
    context_id BLOB NOT NULL,
    seq        INTEGER NOT NULL,
    event      TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (context_id, seq)
) WITHOUT ROWID;
