-- Search over what people and the model wrote (issue 46). `message_texts` holds the visible text
-- of each text message (written by the store beside the message, deleted with it), with its
-- words as a `tsvector` the GIN index covers. The 'simple' configuration neither stems nor drops
-- stop words, as SQLite's unicode61 tokenizer does not, so both stores find the same messages.

CREATE TABLE message_texts (
    context_id UUID NOT NULL,
    message_id UUID NOT NULL,
    body       TEXT NOT NULL,
    words      TSVECTOR GENERATED ALWAYS AS (to_tsvector('simple', body)) STORED,
    PRIMARY KEY (context_id, message_id),
    FOREIGN KEY (context_id, message_id) REFERENCES messages (context_id, id) ON DELETE CASCADE
);

CREATE INDEX message_texts_words ON message_texts USING GIN (words);

-- The text messages stored before this migration: their visible parts, joined.
INSERT INTO message_texts (context_id, message_id, body)
SELECT m.context_id, m.id, string_agg(p.part ->> 'text', '' ORDER BY p.ord)
FROM messages m
CROSS JOIN LATERAL jsonb_array_elements(
    CASE WHEN jsonb_typeof(m.payload::jsonb -> 'data' -> 'parts') = 'array'
         THEN m.payload::jsonb -> 'data' -> 'parts' ELSE '[]'::jsonb END
) WITH ORDINALITY AS p (part, ord)
WHERE m.kind = 'text' AND p.part ->> 'type' = 'text'
GROUP BY m.context_id, m.id
HAVING string_agg(p.part ->> 'text', '' ORDER BY p.ord) <> '';
