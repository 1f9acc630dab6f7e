-- Token counts of message versions (issue 49): a restarted server reads a long context's counts
-- instead of tokenizing every message again before its first answer. One row per message and
-- counter (the encoding and how images are sent); a newer version of the message replaces it.
CREATE TABLE token_counts (
    context_id UUID NOT NULL REFERENCES contexts (id) ON DELETE CASCADE,
    message_id UUID NOT NULL,
    counter    TEXT NOT NULL,
    version    BIGINT NOT NULL,
    tokens     BIGINT NOT NULL,
    PRIMARY KEY (context_id, message_id, counter)
);
