//! How a context's token counts are kept (issue 49): one row per context and counter, its counts
//! packed in one blob of fixed-size records. A context's first read after a restart takes them
//! all back, and reading 10,000 rows cost more than the rest of the counts' read (some 8 ms of a
//! 100 ms first `GET`); one blob of 280 KB reads in well under a millisecond.

use std::collections::HashMap;

use braid_protocol::{ContextId, MessageId};

use crate::error::StoreError;
use crate::record::{StoredTokenCount, StoredTokenCounts};

/// One record: the message id (16 bytes), its version (8, little-endian) and its tokens (4).
const RECORD: usize = 16 + 8 + 4;

/// The counts of one counter, by message: its version and tokens.
pub(crate) type Counts = HashMap<MessageId, (i64, u32)>;

/// Packs `counts` into a blob.
pub(crate) fn pack(counts: &Counts) -> Vec<u8> {
    let mut blob = Vec::with_capacity(counts.len() * RECORD);
    for (message, (version, tokens)) in counts {
        blob.extend_from_slice(message.0.as_bytes());
        blob.extend_from_slice(&version.to_le_bytes());
        blob.extend_from_slice(&tokens.to_le_bytes());
    }
    blob
}

/// Unpacks a blob of `context` into `counts`; a blob that is not whole records is corrupt.
pub(crate) fn unpack_into(
    context: ContextId,
    blob: &[u8],
    counts: &mut Counts,
) -> Result<(), StoreError> {
    if !blob.len().is_multiple_of(RECORD) {
        return Err(StoreError::Corrupt {
            context,
            what: "token counts",
            reason: format!("{} bytes are not whole {RECORD}-byte records", blob.len()),
        });
    }
    counts.reserve(blob.len() / RECORD);
    for record in blob.chunks_exact(RECORD) {
        let (id, rest) = record.split_at(16);
        let (version, tokens) = rest.split_at(8);
        // The lengths are fixed by the split above, so the conversions cannot fail.
        let id = uuid::Uuid::from_slice(id).unwrap_or_default();
        let version = i64::from_le_bytes(version.try_into().unwrap_or_default());
        let tokens = u32::from_le_bytes(tokens.try_into().unwrap_or_default());
        counts.insert(MessageId(id), (version, tokens));
    }
    Ok(())
}

/// The counts of one counter's blob, as the store answers them.
pub(crate) fn unpacked(
    context: ContextId,
    counter: String,
    blob: &[u8],
) -> Result<StoredTokenCounts, StoreError> {
    let mut counts = Counts::new();
    unpack_into(context, blob, &mut counts)?;
    Ok(StoredTokenCounts {
        counter,
        counts: counts
            .into_iter()
            .map(|(message, (version, tokens))| StoredTokenCount {
                message,
                version,
                tokens,
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn packed_counts_unpack_to_the_same_counts() {
        let counts: Counts = (0..100)
            .map(|i| (MessageId::new(), (i64::from(i) * 1_000_000_007 - 5, i * 3)))
            .collect();
        let blob = pack(&counts);
        assert_eq!(blob.len(), 100 * RECORD);
        let mut back = Counts::new();
        unpack_into(ContextId::new(), &blob, &mut back).unwrap();
        assert_eq!(back, counts);
    }

    #[test]
    fn a_blob_of_broken_records_is_corrupt_naming_its_length() {
        let context = ContextId::new();
        let error = unpacked(context, "o200k_base/text".into(), &[0; RECORD + 3]).unwrap_err();
        assert!(
            matches!(&error, StoreError::Corrupt { what: "token counts", reason, .. } if reason.contains("31 bytes")),
            "{error}"
        );
    }
}
