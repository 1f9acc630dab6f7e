-- Context ownership (DESIGN.md "Storage"): one lease per context. `token` grows with each new
-- owner and fences writes: the store refuses a write whose owner's token is older.
-- `expires_ms` is milliseconds since the Unix epoch on the database's clock.
CREATE TABLE leases (
    context_id BLOB PRIMARY KEY NOT NULL REFERENCES contexts (id) ON DELETE CASCADE,
    owner      TEXT NOT NULL,
    address    TEXT,
    token      INTEGER NOT NULL,
    expires_ms INTEGER NOT NULL,
    released   BOOLEAN NOT NULL DEFAULT FALSE
);
