//! Many rows read as one (issue 49). SQLite hands every row of a result from its connection's
//! thread to the task that reads it: loading a 10,000-message branch spent 38% of its time in
//! those hand-offs (flume, futex, scheduler) and 19% in allocating each row's values, against
//! 9% in SQLite itself. The queries that read many messages or ids therefore return a few rows,
//! each the concatenation of up to [`CHUNK`] frames built by SQLite, one query a chunk taken
//! in the order of an index so that SQLite never sorts the payloads:
//!
//! - a message: its id as 32 hex digits, its payload's length in bytes in decimal, `:`, and the
//!   payload;
//! - an id alone: 32 hex digits.

use uuid::Uuid;

/// How many frames one query concatenates into its row: a chunk of typical messages is about
/// half a megabyte, far under SQLite's limit on a value (a billion bytes) even for large ones,
/// and few enough that SQLite sorts it in memory.
pub(crate) const CHUNK: i64 = 1024;

/// The SQL of one message frame, from columns `id` and `payload`.
macro_rules! message_frame {
    () => {
        "hex(id) || length(CAST(payload AS BLOB)) || ':' || payload"
    };
}
pub(crate) use message_frame;

/// The `(id, payload)` pairs of a row of message frames.
pub(crate) struct Frames<'a> {
    rest: &'a str,
}

impl<'a> Frames<'a> {
    /// The frames of `text`.
    pub fn new(text: &'a str) -> Self {
        Self { rest: text }
    }
}

impl<'a> Iterator for Frames<'a> {
    type Item = Result<(Uuid, &'a str), String>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.rest.is_empty() {
            return None;
        }
        let frame = read_frame(self.rest);
        match frame {
            Ok((id, payload, rest)) => {
                self.rest = rest;
                Some(Ok((id, payload)))
            }
            Err(reason) => {
                // Nothing after a bad frame can be trusted.
                self.rest = "";
                Some(Err(reason))
            }
        }
    }
}

fn read_frame(text: &str) -> Result<(Uuid, &str, &str), String> {
    let (id, rest) = split_id(text)?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let length: usize = rest[..digits]
        .parse()
        .map_err(|_| format!("a frame's length is not a number near {:?}", preview(rest)))?;
    let rest = rest[digits..].strip_prefix(':').ok_or_else(|| {
        format!(
            "a frame's length is not followed by ':' near {:?}",
            preview(rest)
        )
    })?;
    let payload = rest
        .get(..length)
        .ok_or_else(|| format!("a frame announces {length} bytes but {} follow", rest.len()))?;
    Ok((id, payload, &rest[length..]))
}

/// The ids of a row of id frames.
pub(crate) fn ids(mut text: &str) -> Result<Vec<Uuid>, String> {
    let mut ids = Vec::with_capacity(text.len() / 32);
    while !text.is_empty() {
        let (id, rest) = split_id(text)?;
        ids.push(id);
        text = rest;
    }
    Ok(ids)
}

fn split_id(text: &str) -> Result<(Uuid, &str), String> {
    let hex = text
        .get(..32)
        .ok_or_else(|| format!("a frame ends inside its id: {:?}", preview(text)))?;
    let id =
        Uuid::try_parse(hex).map_err(|e| format!("a frame's id {hex:?} does not read: {e}"))?;
    Ok((id, &text[32..]))
}

fn preview(text: &str) -> &str {
    let end = (0..=text.len().min(40))
        .rev()
        .find(|i| text.is_char_boundary(*i))
        .unwrap_or(0);
    &text[..end]
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn frame(id: Uuid, payload: &str) -> String {
        format!(
            "{}{}:{payload}",
            id.simple().to_string().to_uppercase(),
            payload.len()
        )
    }

    #[test]
    fn frames_give_back_each_id_and_payload_whatever_the_payload_holds() {
        let (a, b, c) = (Uuid::now_v7(), Uuid::now_v7(), Uuid::now_v7());
        let tricky = "{\"text\":\"12:ab 0192 é ✓ \\u0000\"}";
        let text = [frame(a, "{}"), frame(b, tricky), frame(c, "")].concat();
        let read: Vec<(Uuid, &str)> = Frames::new(&text).map(Result::unwrap).collect();
        assert_eq!(read, vec![(a, "{}"), (b, tricky), (c, "")]);
    }

    #[test]
    fn a_cut_frame_is_an_error_naming_what_is_missing() {
        let id = Uuid::now_v7();
        let text = frame(id, "{\"a\":1}");
        let cut = &text[..text.len() - 2];
        let read: Vec<_> = Frames::new(cut).collect();
        assert_eq!(read.len(), 1);
        let error = read[0].clone().unwrap_err();
        assert!(error.contains("announces 7 bytes but 5 follow"), "{error}");
        assert!(ids("0123").unwrap_err().contains("ends inside its id"));
    }

    #[test]
    fn id_frames_read_in_order() {
        let all: Vec<Uuid> = (0..3).map(|_| Uuid::now_v7()).collect();
        let text: String = all.iter().map(|id| id.simple().to_string()).collect();
        assert_eq!(ids(&text).unwrap(), all);
    }
}
