//! An incremental parser for server-sent events (the WHATWG `text/event-stream` format).
//!
//! Bytes arrive in arbitrary pieces: a line, a UTF-8 character or a `\r\n` pair may be split
//! between two network reads. The parser keeps the unfinished line and hands out each event once
//! its terminating blank line has arrived, so the events do not depend on how the bytes were cut.
//!
//! What it keeps is bounded: a line, or the data of one event, longer than [`MAX_EVENT_BYTES`]
//! (or the parser's own limit) fails the stream with [`crate::LlmError::TooLarge`] instead of
//! growing without end on a provider (or proxy) that never ends a line.
//!
//! Why not the `eventsource-stream` crate: its line buffer has no bound (a peer that never ends
//! a line grows it without end, which Braid's rules forbid for anything fed from outside), and
//! `benches/stream_parsing.rs` (`sse_only`) measures it against this parser on the recorded
//! llama.cpp stream; the figures are in the session notes.

use crate::LlmError;

/// The most bytes one SSE line, or the joined data of one event, may have. Real chunks are a few
/// hundred bytes; this leaves room for large tool arguments or inline images in one piece.
pub const MAX_EVENT_BYTES: usize = 8 * 1024 * 1024;

/// One dispatched event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field; `None` means the default type, `message`.
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// The parser's state between pieces of input.
#[derive(Debug)]
pub struct SseParser {
    /// The most bytes a line or one event's data may have.
    limit: usize,
    line: Vec<u8>,
    /// The previous piece ended in `\r`: a `\n` at the start of the next one belongs to it.
    after_cr: bool,
    event: Option<String>,
    data: String,
    has_data: bool,
}

impl Default for SseParser {
    fn default() -> Self {
        Self::with_limit(MAX_EVENT_BYTES)
    }
}

impl SseParser {
    /// A parser at the start of a stream, with the limit [`MAX_EVENT_BYTES`].
    pub fn new() -> Self {
        Self::default()
    }

    /// A parser whose lines and events may have at most `limit` bytes.
    pub fn with_limit(limit: usize) -> Self {
        Self {
            limit,
            line: Vec::new(),
            after_cr: false,
            event: None,
            data: String::new(),
            has_data: false,
        }
    }

    fn too_large(&mut self, what: &'static str) -> LlmError {
        let limit = self.limit;
        *self = Self::with_limit(limit);
        LlmError::TooLarge { what, limit }
    }

    /// Feeds the next piece of the stream, appending every event it completes to `out`. A line
    /// or an event over the limit is an error; the events completed before it are in `out`.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<SseEvent>) -> Result<(), LlmError> {
        let mut rest = bytes;
        if self.after_cr {
            self.after_cr = false;
            if let Some(stripped) = rest.strip_prefix(b"\n") {
                rest = stripped;
            }
        }
        while let Some(end) = rest.iter().position(|b| *b == b'\n' || *b == b'\r') {
            if self.line.len() + end > self.limit {
                return Err(self.too_large("line"));
            }
            self.line.extend_from_slice(&rest[..end]);
            let terminator = rest[end];
            rest = &rest[end + 1..];
            if terminator == b'\r' {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
            let line = std::mem::take(&mut self.line);
            self.take_line(&line, out)?;
        }
        if self.line.len() + rest.len() > self.limit {
            return Err(self.too_large("line"));
        }
        self.line.extend_from_slice(rest);
        Ok(())
    }

    /// Ends the stream. An event without its blank line is dropped, as the format requires;
    /// returns whether such an unfinished event (or line) was pending.
    pub fn finish(&mut self) -> bool {
        let pending = !self.line.is_empty() || self.has_data;
        *self = Self::with_limit(self.limit);
        pending
    }

    fn take_line(&mut self, line: &[u8], out: &mut Vec<SseEvent>) -> Result<(), LlmError> {
        if line.is_empty() {
            if self.has_data {
                out.push(SseEvent {
                    event: self.event.take(),
                    data: std::mem::take(&mut self.data),
                });
            }
            self.event = None;
            self.has_data = false;
            return Ok(());
        }
        if line[0] == b':' {
            return Ok(());
        }
        let (field, value) = match line.iter().position(|b| *b == b':') {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        match field {
            b"data" => {
                if self.data.len() + 1 + value.len() > self.limit {
                    return Err(self.too_large("event"));
                }
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(&String::from_utf8_lossy(value));
                self.has_data = true;
            }
            b"event" => self.event = Some(String::from_utf8_lossy(value).into_owned()),
            // `id` and `retry` only matter to reconnecting browsers; unknown fields are ignored.
            _ => {}
        }
        Ok(())
    }
}

/// Turns a provider's SSE events into [`crate::LlmEvent`]s.
pub trait EventDecoder: Send {
    /// Handles one event, appending what it yields to `out`. Returns `Ok(true)` once the provider
    /// has said the answer is over (`[DONE]`, `message_stop`).
    fn on_event(
        &mut self,
        event: &SseEvent,
        out: &mut Vec<crate::LlmEvent>,
    ) -> Result<bool, crate::LlmError>;

    /// The bytes ended without the end marker: finish what can be finished, or say the stream
    /// was cut.
    fn on_end(&mut self, out: &mut Vec<crate::LlmEvent>) -> Result<(), crate::LlmError>;
}

/// Runs a whole recorded stream, given in pieces, through a parser and a decoder: the events it
/// yields, and the error that ended it, if any. For tests, benches and replaying recordings.
pub fn decode_pieces<'a>(
    decoder: &mut dyn EventDecoder,
    pieces: impl IntoIterator<Item = &'a [u8]>,
) -> (Vec<crate::LlmEvent>, Option<crate::LlmError>) {
    let mut parser = SseParser::new();
    let mut events = Vec::new();
    let mut out = Vec::new();
    for piece in pieces {
        let pushed = parser.push(piece, &mut events);
        for event in events.drain(..) {
            match decoder.on_event(&event, &mut out) {
                Ok(false) => {}
                Ok(true) => return (out, None),
                Err(e) => return (out, Some(e)),
            }
        }
        if let Err(e) = pushed {
            return (out, Some(e));
        }
    }
    parser.finish();
    match decoder.on_end(&mut out) {
        Ok(()) => (out, None),
        Err(e) => (out, Some(e)),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn parse_all(input: &[u8]) -> Vec<SseEvent> {
        let mut p = SseParser::new();
        let mut out = Vec::new();
        p.push(input, &mut out).unwrap();
        out
    }

    #[test]
    fn events_are_split_by_blank_lines_with_any_line_ending() {
        let out = parse_all(b"event: a\ndata: 1\n\ndata: 2\r\n\r\ndata: 3\r\rdata:4\n");
        assert_eq!(
            out,
            vec![
                SseEvent {
                    event: Some("a".into()),
                    data: "1".into()
                },
                SseEvent {
                    event: None,
                    data: "2".into()
                },
                SseEvent {
                    event: None,
                    data: "3".into()
                },
            ]
        );
    }

    #[test]
    fn multi_line_data_is_joined_and_comments_ignored() {
        let out = parse_all(b": keep-alive\ndata: a\ndata: b\nid: 7\n\n");
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].data, "a\nb");
    }

    #[test]
    fn crlf_split_between_pieces_is_one_line_ending() {
        let mut p = SseParser::new();
        let mut out = Vec::new();
        p.push(b"data: x\r", &mut out).unwrap();
        p.push(b"\n\r", &mut out).unwrap();
        p.push(b"\ndata: y\r\n\r\n", &mut out).unwrap();
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].data, "x");
        assert_eq!(out[1].data, "y");
    }

    #[test]
    fn utf8_split_inside_a_character_is_reassembled() {
        let text = "data: héllo\n\n".as_bytes();
        let mut p = SseParser::new();
        let mut out = Vec::new();
        p.push(&text[..8], &mut out).unwrap();
        p.push(&text[8..], &mut out).unwrap();
        assert_eq!(out[0].data, "héllo");
    }

    #[test]
    fn unfinished_event_at_end_is_reported_and_dropped() {
        let mut p = SseParser::new();
        let mut out = Vec::new();
        p.push(b"data: {\"partial", &mut out).unwrap();
        assert!(out.is_empty());
        assert!(p.finish());
        assert!(!p.finish());
    }

    #[test]
    fn a_line_over_the_limit_fails_however_it_arrives() {
        // In one piece, with its end.
        let mut p = SseParser::with_limit(16);
        let mut out = Vec::new();
        let err = p
            .push(b"data: 1\n\ndata: 0123456789abcdef\n\n", &mut out)
            .unwrap_err();
        assert!(
            matches!(
                err,
                LlmError::TooLarge {
                    what: "line",
                    limit: 16
                }
            ),
            "{err}"
        );
        assert_eq!(out.len(), 1, "the event before it was delivered");
        assert!(err.to_string().contains("16 bytes"), "{err}");
        // A line that never ends, arriving in small pieces, is refused once it passes the limit.
        let mut p = SseParser::with_limit(16);
        let mut failed_at = None;
        for i in 0..100 {
            if p.push(b"data: xxxx", &mut out).is_err() {
                failed_at = Some(i);
                break;
            }
        }
        assert_eq!(failed_at, Some(1), "refused as soon as it passed 16 bytes");
    }

    #[test]
    fn an_event_over_the_limit_fails() {
        let mut p = SseParser::with_limit(16);
        let mut out = Vec::new();
        let err = p
            .push(b"data: 0123456\ndata: 0123456\ndata: 0123456\n", &mut out)
            .unwrap_err();
        assert!(
            matches!(err, LlmError::TooLarge { what: "event", .. }),
            "{err}"
        );
        // A line right at the limit, and an event right at it, are fine.
        let mut p = SseParser::with_limit(16);
        p.push(b"data: 0123456789\n\n", &mut out).unwrap();
        assert_eq!(out.last().unwrap().data, "0123456789");
        p.push(b"data: 01234567\ndata: 0123456\n\n", &mut out)
            .unwrap();
        assert_eq!(out.last().unwrap().data.len(), 16);
    }
}
