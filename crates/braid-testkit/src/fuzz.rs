//! Fuzzing on stable Rust: property tests that feed arbitrary and mutated input to Braid's
//! parsers, with a case count and a time budget (feature `fuzz`).
//!
//! Every fuzz target calls [`run`] with its name, a strategy and a property. The number of cases
//! comes from `PROPTEST_CASES` (proptest's own variable; the target's modest default when it is
//! unset, so `make test` stays quick) and the run stops early, without failing, once
//! `BRAID_FUZZ_SECONDS` have passed (`make fuzz` sets both). Each target prints one line,
//! `fuzz <name>: <cases> cases in <seconds>s`, which `make fuzz` sums up.
//!
//! The strategies build JSON a parser is likely to half-understand: values whose object keys are
//! drawn from the field names the parser knows ([`json_with_keys`]), mutations of a valid
//! document ([`mutated_json`]), byte-level mutations ([`mutated_bytes`]) and arbitrary cuts of
//! a byte stream ([`split_points`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};
use serde_json::{Map, Number, Value};

/// Cases per batch: the deadline is checked between batches, and each batch has its own seed.
const BATCH: u32 = 500;

/// Integers at the edges of the types fields are read into.
const EDGES: [i128; 14] = [
    -1,
    0,
    1,
    255,
    256,
    65_535,
    i32::MAX as i128,
    u32::MAX as i128,
    u32::MAX as i128 + 1,
    i64::MAX as i128,
    u64::MAX as i128,
    i32::MIN as i128,
    i64::MIN as i128,
    1 << 53,
];

/// The time budget's environment variable (seconds, fractional allowed).
pub const BUDGET_VARIABLE: &str = "BRAID_FUZZ_SECONDS";

/// What one fuzz target did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FuzzReport {
    /// Cases run (each one passed).
    pub cases: u64,
    /// How long they took.
    pub elapsed: Duration,
}

/// Runs `property` on values of `strategy` until `PROPTEST_CASES` (else `default_cases`) have
/// passed or the time budget is spent; panics with the smallest failing input when one fails.
pub fn run<S>(
    name: &str,
    default_cases: u32,
    strategy: S,
    property: impl Fn(S::Value) -> Result<(), TestCaseError>,
) -> FuzzReport
where
    S: Strategy,
    S::Value: std::fmt::Debug,
{
    let wanted = match std::env::var("PROPTEST_CASES") {
        Ok(_) => Config::default().cases,
        Err(_) => default_cases,
    };
    let budget = std::env::var(BUDGET_VARIABLE)
        .ok()
        .and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(Duration::from_secs_f64);
    let started = Instant::now();
    let passed = AtomicU64::new(0);
    let mut remaining = wanted;
    while remaining > 0 {
        if budget.is_some_and(|b| started.elapsed() >= b) {
            break;
        }
        // With a budget, small batches: values are still generated for the rest of a batch
        // once the budget is spent, and generating some strategies' values is slow.
        let batch = if budget.is_some() { BATCH / 5 } else { BATCH };
        let cases = remaining.min(batch);
        remaining -= cases;
        let config = Config {
            cases,
            // A failure is reported with its input; the regression test is written by hand.
            failure_persistence: None,
            max_shrink_time: 60_000,
            ..Config::default()
        };
        let mut runner = TestRunner::new(config);
        let outcome = runner.run(&strategy, |value| {
            // Past the budget the rest of the batch is generated but not checked or counted.
            if budget.is_some_and(|b| started.elapsed() >= b) {
                return Ok(());
            }
            property(value)?;
            passed.fetch_add(1, Ordering::Relaxed);
            Ok(())
        });
        match outcome {
            Ok(()) => {}
            Err(TestError::Fail(reason, input)) => {
                #[allow(clippy::panic)]
                {
                    panic!("fuzz {name}: {reason}\nminimal failing input: {input:#?}");
                }
            }
            Err(TestError::Abort(reason)) => {
                #[allow(clippy::panic)]
                {
                    panic!("fuzz {name}: aborted: {reason}");
                }
            }
        }
    }
    let report = FuzzReport {
        cases: passed.load(Ordering::Relaxed),
        elapsed: started.elapsed(),
    };
    eprintln!(
        "fuzz {name}: {} cases in {:.1}s",
        report.cases,
        report.elapsed.as_secs_f64()
    );
    report
}

/// Any JSON scalar, including the awkward ones (huge and negative numbers, fractions, empty and
/// non-ASCII strings).
pub fn json_scalar() -> impl Strategy<Value = Value> + Clone {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        // The edges of the integer types a field may have (an overflow waits at each).
        prop::sample::select(&EDGES[..]).prop_map(|n| match i64::try_from(n) {
            Ok(n) => Value::from(n),
            Err(_) => u64::try_from(n).map_or(Value::Null, Value::from),
        }),
        prop_oneof![
            Just(0.0),
            Just(-0.5),
            Just(1e300),
            Just(-1e-300),
            any::<f64>().prop_filter("finite", |f| f.is_finite()),
        ]
        .prop_map(|f| Number::from_f64(f).map_or(Value::Null, Value::Number)),
        json_string().prop_map(Value::String),
    ]
}

/// Strings a parser might trip on: empty, whitespace, path-like, numeric, long, any Unicode.
pub fn json_string() -> impl Strategy<Value = String> + Clone {
    prop_oneof![
        Just(String::new()),
        Just(" ".to_owned()),
        Just("..".to_owned()),
        Just("/".to_owned()),
        Just("0".to_owned()),
        "[a-z_]{1,12}",
        "\\PC{0,40}",
        any::<String>(),
    ]
}

/// Any JSON value whose object keys are mostly drawn from `keys` (the field names the parser
/// under test knows), nested a few levels deep.
pub fn json_with_keys(keys: &'static [&'static str]) -> impl Strategy<Value = Value> + Clone {
    let key = prop_oneof![
        4 => prop::sample::select(keys).prop_map(str::to_owned),
        1 => json_string(),
    ];
    json_scalar().prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((key.clone(), inner), 0..6)
                .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// One change to a JSON document.
#[derive(Clone, Debug)]
pub enum Mutation {
    /// Remove the node (from its object or array).
    Remove,
    /// Replace the node with another value.
    Replace(Value),
    /// Wrap the node in an array (a list where one value was expected).
    WrapInArray,
    /// Replace an array or object with its first element or value (one value where a list was
    /// expected).
    Unwrap,
    /// Insert a field into the node when it is an object.
    Insert(String, Value),
}

/// `document` with one to four mutations applied at random nodes; replacement values use the
/// object keys in `keys`.
pub fn mutated_json(
    document: Value,
    keys: &'static [&'static str],
) -> impl Strategy<Value = Value> {
    let mutation = prop_oneof![
        3 => Just(Mutation::Remove),
        3 => json_with_keys(keys).prop_map(Mutation::Replace),
        1 => Just(Mutation::WrapInArray),
        1 => Just(Mutation::Unwrap),
        2 => (prop::sample::select(keys), json_with_keys(keys))
            .prop_map(|(k, v)| Mutation::Insert(k.to_owned(), v)),
    ];
    prop::collection::vec((any::<Index>(), mutation), 1..5).prop_map(move |mutations| {
        let mut value = document.clone();
        for (at, mutation) in mutations {
            apply(&mut value, at, mutation);
        }
        value
    })
}

/// Applies `mutation` to the node `at` picks among every node of `value` (pre-order).
pub fn apply(value: &mut Value, at: Index, mutation: Mutation) {
    let count = count_nodes(value);
    let target = at.index(count);
    let mut seen = 0;
    visit(value, target, &mut seen, &mutation, true);
}

fn count_nodes(value: &Value) -> usize {
    1 + match value {
        Value::Array(items) => items.iter().map(count_nodes).sum(),
        Value::Object(map) => map.values().map(count_nodes).sum(),
        _ => 0,
    }
}

/// Walks to node number `target`; returns true when the node should be removed by its parent.
fn visit(
    value: &mut Value,
    target: usize,
    seen: &mut usize,
    mutation: &Mutation,
    root: bool,
) -> bool {
    if *seen == target {
        *seen += 1;
        match mutation {
            Mutation::Remove if !root => return true,
            Mutation::Remove => *value = Value::Null,
            Mutation::Replace(v) => *value = v.clone(),
            Mutation::WrapInArray => *value = Value::Array(vec![value.take()]),
            Mutation::Unwrap => {
                let first = match value {
                    Value::Array(items) => items.first().cloned(),
                    Value::Object(map) => map.values().next().cloned(),
                    _ => None,
                };
                if let Some(first) = first {
                    *value = first;
                }
            }
            Mutation::Insert(k, v) => {
                if let Value::Object(map) = value {
                    map.insert(k.clone(), v.clone());
                }
            }
        }
        return false;
    }
    *seen += 1;
    match value {
        Value::Array(items) => {
            let mut remove = None;
            for (i, item) in items.iter_mut().enumerate() {
                if *seen > target {
                    break;
                }
                if visit(item, target, seen, mutation, false) {
                    remove = Some(i);
                }
            }
            if let Some(i) = remove {
                items.remove(i);
            }
        }
        Value::Object(map) => {
            let mut remove = None;
            for (k, item) in map.iter_mut() {
                if *seen > target {
                    break;
                }
                if visit(item, target, seen, mutation, false) {
                    remove = Some(k.clone());
                }
            }
            if let Some(k) = remove {
                map.remove(&k);
            }
        }
        _ => {}
    }
    false
}

/// Arbitrary bytes, up to `max` of them.
pub fn any_bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..=max)
}

/// One change to a byte string.
#[derive(Clone, Debug)]
pub enum ByteEdit {
    /// Overwrite the byte at the position.
    Set(Index, u8),
    /// Insert bytes at the position.
    Insert(Index, Vec<u8>),
    /// Remove up to this many bytes at the position.
    Delete(Index, usize),
    /// Copy a stretch of the input to another place (repeats a line or an event).
    Duplicate(Index, Index, usize),
}

/// `bytes` with up to eight edits: overwritten, inserted, deleted or repeated stretches.
pub fn mutated_bytes(bytes: Vec<u8>) -> impl Strategy<Value = Vec<u8>> {
    let interesting = prop_oneof![
        any::<u8>(),
        prop::sample::select(&b"\r\n:{}[]\",\\ 0\xff\xc3"[..]),
    ];
    let edit = prop_oneof![
        (any::<Index>(), interesting).prop_map(|(i, b)| ByteEdit::Set(i, b)),
        (any::<Index>(), prop::collection::vec(any::<u8>(), 1..16))
            .prop_map(|(i, b)| ByteEdit::Insert(i, b)),
        (any::<Index>(), 1usize..64).prop_map(|(i, n)| ByteEdit::Delete(i, n)),
        (any::<Index>(), any::<Index>(), 1usize..256)
            .prop_map(|(from, to, n)| ByteEdit::Duplicate(from, to, n)),
    ];
    prop::collection::vec(edit, 0..8).prop_map(move |edits| {
        let mut out = bytes.clone();
        for edit in edits {
            apply_byte_edit(&mut out, edit);
        }
        out
    })
}

fn apply_byte_edit(out: &mut Vec<u8>, edit: ByteEdit) {
    let len = out.len();
    match edit {
        ByteEdit::Set(i, b) if len > 0 => out[i.index(len)] = b,
        ByteEdit::Set(..) => out.push(0),
        ByteEdit::Insert(i, bytes) => {
            let at = i.index(len + 1);
            out.splice(at..at, bytes);
        }
        ByteEdit::Delete(i, n) if len > 0 => {
            let at = i.index(len);
            out.drain(at..(at + n).min(len));
        }
        ByteEdit::Delete(..) => {}
        ByteEdit::Duplicate(from, to, n) if len > 0 => {
            let start = from.index(len);
            let stretch = out[start..(start + n).min(len)].to_vec();
            let at = to.index(len + 1);
            out.splice(at..at, stretch);
        }
        ByteEdit::Duplicate(..) => {}
    }
}

/// Up to `max` cut points, as indexes to resolve against the input's length with [`cut`].
pub fn split_points(max: usize) -> impl Strategy<Value = Vec<Index>> {
    prop::collection::vec(any::<Index>(), 0..=max)
}

/// `bytes` cut at `points` (resolved against its length, sorted, duplicates giving empty
/// pieces) into consecutive pieces that join back to `bytes`.
pub fn cut<'a>(bytes: &'a [u8], points: &[Index]) -> Vec<&'a [u8]> {
    let mut at: Vec<usize> = points.iter().map(|p| p.index(bytes.len() + 1)).collect();
    at.sort_unstable();
    let mut pieces = Vec::with_capacity(at.len() + 1);
    let mut start = 0;
    for end in at {
        pieces.push(&bytes[start..end]);
        start = end;
    }
    pieces.push(&bytes[start..]);
    pieces
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use proptest::test_runner::TestRunner;
    use serde_json::json;

    #[test]
    fn cut_pieces_join_back_to_the_input() {
        let mut runner = TestRunner::default();
        runner
            .run(
                &(prop::collection::vec(any::<u8>(), 0..64), split_points(8)),
                |(bytes, points)| {
                    let pieces = cut(&bytes, &points);
                    prop_assert_eq!(pieces.len(), points.len() + 1);
                    prop_assert_eq!(pieces.concat(), bytes);
                    Ok(())
                },
            )
            .unwrap();
    }

    #[test]
    fn removing_a_field_takes_it_out_of_its_object() {
        let mut v = json!({"a": 1, "b": {"c": 2}});
        // Pre-order: 0 root, 1 a, 2 b, 3 b.c.
        visit(&mut v, 3, &mut 0, &Mutation::Remove, true);
        assert_eq!(v, json!({"a": 1, "b": {}}));
    }

    #[test]
    fn the_run_counts_its_cases_and_reports_a_failure() {
        let report = run("count", 10, any::<u8>(), |_| Ok(()));
        assert!(report.cases >= 10 || std::env::var("PROPTEST_CASES").is_ok());
        let failed = std::panic::catch_unwind(|| {
            run("fails", 50, 0u8..10, |n| {
                prop_assert!(n < 5);
                Ok(())
            })
        });
        let message = *failed.unwrap_err().downcast::<String>().unwrap();
        assert!(message.contains("minimal failing input: 5"), "{message}");
    }
}
