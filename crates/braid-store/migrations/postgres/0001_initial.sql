-- Braid's schema for PostgreSQL. JSON is stored as text, exactly as written, so that a message
-- of an unknown kind is kept byte for byte.

CREATE TABLE contexts (
    id            UUID PRIMARY KEY,
    title         TEXT NOT NULL,
    config        TEXT NOT NULL,
    active_branch TEXT NOT NULL,
    state         TEXT NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL,
    updated_at    TIMESTAMPTZ NOT NULL
);

CREATE TABLE branches (
    context_id    UUID NOT NULL REFERENCES contexts (id) ON DELETE CASCADE,
    name          TEXT NOT NULL,
    system_prompt TEXT,
    pipeline      TEXT,
    parent        TEXT,
    fork_point    UUID,
    created_at    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (context_id, name)
);

CREATE TABLE messages (
    context_id UUID NOT NULL REFERENCES contexts (id) ON DELETE CASCADE,
    id         UUID NOT NULL,
    role       TEXT NOT NULL,
    kind       TEXT NOT NULL,
    status     TEXT NOT NULL,
    payload    TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (context_id, id)
);

CREATE TABLE branch_messages (
    context_id UUID NOT NULL,
    branch     TEXT NOT NULL,
    position   BIGINT NOT NULL,
    message_id UUID NOT NULL,
    PRIMARY KEY (context_id, branch, position),
    FOREIGN KEY (context_id, branch) REFERENCES branches (context_id, name) ON DELETE CASCADE,
    FOREIGN KEY (context_id, message_id) REFERENCES messages (context_id, id) ON DELETE CASCADE
);

CREATE UNIQUE INDEX branch_messages_once ON branch_messages (context_id, branch, message_id);
CREATE INDEX branch_messages_by_message ON branch_messages (context_id, message_id);

CREATE TABLE events (
    context_id UUID NOT NULL,
    seq        BIGINT NOT NULL,
    event      TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (context_id, seq)
);
