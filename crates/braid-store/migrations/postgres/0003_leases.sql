-- Context ownership (DESIGN.md "Storage"): one lease per context, renewed by its owner's
-- heartbeat. `token` grows with each new owner and fences writes: the store refuses a write
-- whose owner's token is older. `expires_ms` is milliseconds since the Unix epoch on the
-- database's clock, so replicas never compare their own clocks.
CREATE TABLE leases (
    context_id UUID PRIMARY KEY NOT NULL REFERENCES contexts (id) ON DELETE CASCADE,
    owner      TEXT NOT NULL,
    address    TEXT,
    token      BIGINT NOT NULL,
    expires_ms BIGINT NOT NULL,
    released   BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE INDEX leases_by_owner ON leases (owner);
