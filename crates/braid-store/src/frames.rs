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

use braid_protocol::{ContextId, Message};
use tokio::task::JoinHandle;
use uuid::Uuid;

use crate::error::StoreError;

/// How many frames one query concatenates into its row: a chunk of typical messages is about
/// half a megabyte, far under SQLite's limit on a value (a billion bytes) even for large ones,
/// and few enough that SQLite sorts it in memory.
pub(crate) const CHUNK: i64 = 1024;

/// The SQL of one message frame, from columns `id` and `payload`.
macro_rules! message_frame {
    () => {
        "hex(id) || octet_length(payload) || ':' || payload"
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

/// The messages of rows of message frames, in order: those whose payload reads, and the place,
/// id and payload of each one that does not (read again with its row's other columns, to keep
/// it as an `unknown` message).
#[derive(Debug, Default)]
pub(crate) struct Decoded {
    /// The messages whose payload read, in order.
    pub messages: Vec<Message>,
    /// Each unreadable payload: its place among all the messages, its id and the payload.
    pub unreadable: Vec<(usize, Uuid, String)>,
}

impl Decoded {
    /// Decodes one row of frames; an error says what is wrong with the first bad frame.
    fn of(text: &str) -> Result<Self, String> {
        let mut decoded = Self::default();
        for frame in Frames::new(text) {
            let (id, payload) = frame?;
            match Message::from_json(payload) {
                Ok(message) => decoded.messages.push(message),
                Err(_) => decoded
                    .unreadable
                    .push((decoded.len(), id, payload.to_owned())),
            }
        }
        Ok(decoded)
    }

    /// How many messages it holds, read or not.
    pub fn len(&self) -> usize {
        self.messages.len() + self.unreadable.len()
    }

    /// Adds the messages of the row that follows.
    fn append(&mut self, next: Decoded) {
        let offset = self.len();
        self.messages.extend(next.messages);
        self.unreadable.extend(
            next.unreadable
                .into_iter()
                .map(|(place, id, payload)| (place + offset, id, payload)),
        );
    }

    /// The same messages in the opposite order (the newest are read newest first).
    pub fn reverse(&mut self) {
        let last = self.len().saturating_sub(1);
        self.messages.reverse();
        self.unreadable.reverse();
        for (place, _, _) in &mut self.unreadable {
            *place = last - *place;
        }
    }
}

/// Rows of message frames decoded as they come (issue 49). Loading a long branch is about half
/// SQLite (on its connection's thread) and half decoding; a row that another follows is decoded
/// on a blocking thread while the next is read, so the two halves run side by side.
pub(crate) struct Decoding {
    context: ContextId,
    running: Vec<JoinHandle<Result<Decoded, String>>>,
}

impl Decoding {
    /// Nothing decoded yet, for the rows of `context`.
    pub fn new(context: ContextId) -> Self {
        Self {
            context,
            running: Vec::new(),
        }
    }

    /// Begins decoding `text`, a row that another follows, beside the reading of that one.
    pub fn begin(&mut self, text: String) {
        self.running
            .push(tokio::task::spawn_blocking(move || Decoded::of(&text)));
    }

    /// The messages of every row begun and then of `last`, in order; `last` is decoded here,
    /// since nothing is read beside it.
    pub async fn finish(self, last: &str) -> Result<Decoded, StoreError> {
        let context = self.context;
        let corrupt = |reason| StoreError::Corrupt {
            context,
            what: "message frames",
            reason,
        };
        let mut rows = Vec::with_capacity(self.running.len() + 1);
        for running in self.running {
            let row = running
                .await
                .map_err(|e| corrupt(format!("decoding a row of frames stopped: {e}")))?;
            rows.push(row.map_err(corrupt)?);
        }
        rows.push(Decoded::of(last).map_err(corrupt)?);
        if rows.len() == 1 {
            return Ok(rows.swap_remove(0));
        }
        // Sized once: appended a row at a time, a long branch was copied again at each
        // doubling, into pages the process had not touched yet.
        let mut all = Decoded {
            messages: Vec::with_capacity(rows.iter().map(|row| row.messages.len()).sum()),
            unreadable: Vec::new(),
        };
        for row in rows {
            all.append(row);
        }
        Ok(all)
    }
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
