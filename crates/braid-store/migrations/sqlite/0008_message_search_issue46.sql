-- Search over what people and the model wrote (issue 46). `message_texts` holds the visible text
-- of each text message (written by the store beside the message, deleted with it); the FTS5
-- index reads its rows by `rowid`, which this table declares, so a VACUUM cannot renumber them
-- under the index. The triggers keep the index equal to the table.

CREATE TABLE message_texts (
    rowid      INTEGER PRIMARY KEY,
    context_id BLOB NOT NULL,
    message_id BLOB NOT NULL,
    body       TEXT NOT NULL,
    UNIQUE (context_id, message_id),
    FOREIGN KEY (context_id, message_id) REFERENCES messages (context_id, id) ON DELETE CASCADE
);

CREATE VIRTUAL TABLE message_search USING fts5 (
    body,
    content = 'message_texts',
    content_rowid = 'rowid',
    tokenize = 'unicode61 remove_diacritics 2'
);

CREATE TRIGGER message_texts_indexed AFTER INSERT ON message_texts BEGIN
    INSERT INTO message_search (rowid, body) VALUES (new.rowid, new.body);
END;

CREATE TRIGGER message_texts_unindexed AFTER DELETE ON message_texts BEGIN
    INSERT INTO message_search (message_search, rowid, body) VALUES ('delete', old.rowid, old.body);
END;

CREATE TRIGGER message_texts_reindexed AFTER UPDATE OF body ON message_texts BEGIN
    INSERT INTO message_search (message_search, rowid, body) VALUES ('delete', old.rowid, old.body);
    INSERT INTO message_search (rowid, body) VALUES (new.rowid, new.body);
END;

-- The text messages stored before this migration: their visible parts, joined.
INSERT INTO message_texts (context_id, message_id, body)
SELECT context_id, id, body FROM (
    SELECT m.context_id AS context_id, m.id AS id,
           group_concat(json_extract(p.value, '$.text'), '') AS body
    FROM messages m,
         json_each(CASE WHEN json_valid(m.payload) THEN m.payload ELSE '{}' END, '$.data.parts') p
    WHERE m.kind = 'text' AND json_extract(p.value, '$.type') = 'text'
    GROUP BY m.context_id, m.id
)
WHERE body IS NOT NULL AND body <> '';
