-- Token counts of message versions (issue 49): a restarted server reads a long context's counts
-- instead of tokenizing every message again before its first answer. One row per context and
-- counter (the encoding and how images are sent), its counts packed in one blob of 28-byte
-- records (message id, version as little-endian nanoseconds, tokens): a first read takes them
-- all back at once (see braid-store's token_counts.rs).
CREATE TABLE token_counts (
    context_id BLOB NOT NULL REFERENCES contexts (id) ON DELETE CASCADE,
    counter    TEXT NOT NULL,
    counts     BLOB NOT NULL,
    PRIMARY KEY (context_id, counter)
);
