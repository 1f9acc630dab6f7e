//! Reading an image's text with Tesseract.
//!
//! Tesseract runs as its command-line program, a child process, rather than through a library
//! binding: a crash or a runaway recognition of a hostile image then ends a child (killed with
//! its process group at the timeout), never the server; no C toolchain, bindgen or
//! `libtesseract-dev` is needed to build Braid; and the Debian packages `tesseract-ocr` and
//! `tesseract-ocr-eng` are all an operator installs. The child gets the allow-listed
//! environment (none of Braid's secrets) and its output is capped.

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use braid_tools::{ChildEnvironment, ProcessGroup};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::ImageError;

/// The Debian package that provides the `tesseract` program.
pub const TESSERACT_PACKAGE: &str = "tesseract-ocr";

/// The Debian package with Tesseract's English data.
pub const TESSERACT_LANGUAGE_PACKAGE: &str = "tesseract-ocr-eng";

/// The most bytes of Tesseract's output read; beyond it recognition fails.
pub const MAX_OCR_OUTPUT_BYTES: u64 = 4 * 1024 * 1024;

/// The most bytes of Tesseract's diagnostics kept for an error message.
const MAX_OCR_STDERR_BYTES: u64 = 16 * 1024;

/// The Debian package of Tesseract's script and orientation detection, which picks the language
/// of an image when several are installed.
pub const TESSERACT_OSD_PACKAGE: &str = "tesseract-ocr-osd";

/// The most installed languages one image is read with while its language is detected.
pub const MAX_TRIED_LANGUAGES: usize = 4;

/// How much better (in mean word confidence, 0 to 100) another language must read an image to
/// be chosen over an earlier one: clean text reads about as well in any language of its script.
const CONFIDENCE_MARGIN: f32 = 2.0;

/// How OCR runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OcrSettings {
    /// The Tesseract program (looked up in `PATH` when it has no `/`).
    pub program: PathBuf,
    /// Tesseract's language codes, joined by `+` (`eng`, `eng+deu`); `None` detects each image's
    /// language among those installed.
    pub languages: Option<String>,
    /// The longest one recognition may take.
    pub timeout: Duration,
}

impl Default for OcrSettings {
    fn default() -> Self {
        Self {
            program: PathBuf::from("tesseract"),
            languages: None,
            timeout: Duration::from_secs(60),
        }
    }
}

/// What OCR read.
#[derive(Clone, Debug, PartialEq)]
pub struct OcrText {
    /// The text, line by line; paragraphs separated by a blank line.
    pub text: String,
    /// Mean confidence of the words, 0 to 100; `None` when no word was found.
    pub confidence: Option<f32>,
    /// The language data it was read with (the one detected, or the one set).
    pub language: String,
}

/// Reads the text of a PNG or JPEG image with Tesseract, in the languages `settings` names or,
/// when it names none, in the language detected: the only one installed; else the one of the
/// script Tesseract's orientation and script detection finds; else the installed language
/// (at most [`MAX_TRIED_LANGUAGES`]) that reads the image with the best confidence.
pub async fn read_text(settings: &OcrSettings, image: Vec<u8>) -> Result<OcrText, ImageError> {
    if let Some(languages) = &settings.languages {
        return recognize(settings, languages, image).await;
    }
    let installed = installed_languages(settings).await?;
    let mut candidates: Vec<&str> = installed
        .iter()
        .map(String::as_str)
        .filter(|l| !matches!(*l, "osd" | "equ") && !l.contains('/'))
        .collect();
    // English first: among equals, the earlier language wins.
    candidates.sort_by_key(|l| *l != "eng");
    if candidates.is_empty() {
        return Err(ImageError::OcrUnavailable(format!(
            "Tesseract has no language data installed: install the Debian package `{TESSERACT_LANGUAGE_PACKAGE}` (scripts/setup-system.sh does)"
        )));
    }
    if candidates.len() > 1 && installed.iter().any(|l| l == "osd") {
        let script = detect_script(settings, image.clone()).await;
        let of_script: Vec<&str> = candidates
            .iter()
            .copied()
            .filter(|l| script.as_deref() == Some(script_of(l)))
            .collect();
        tracing::debug!(?script, ?of_script, "script of an image detected");
        if !of_script.is_empty() {
            candidates = of_script;
        }
    }
    let mut best: Option<OcrText> = None;
    for language in candidates.into_iter().take(MAX_TRIED_LANGUAGES) {
        let read = recognize(settings, language, image.clone()).await?;
        let better = match &best {
            None => true,
            Some(b) => {
                read.confidence.unwrap_or(0.0) > b.confidence.unwrap_or(0.0) + CONFIDENCE_MARGIN
            }
        };
        if better {
            best = Some(read);
        }
    }
    best.ok_or_else(|| ImageError::OcrFailed("no language was tried".to_owned()))
}

/// The languages whose data Tesseract has (`tesseract --list-langs`).
async fn installed_languages(settings: &OcrSettings) -> Result<Vec<String>, ImageError> {
    let done = run(settings, &["--list-langs"], Vec::new()).await?;
    if !done.status.success() {
        return Err(ImageError::OcrUnavailable(format!(
            "Tesseract could not list its languages ({}): {}",
            done.status,
            last_lines(&done.stderr)
        )));
    }
    // The first line says where the data is; Tesseract 4 writes the list to stderr.
    let listing = format!("{}\n{}", String::from_utf8_lossy(&done.stdout), done.stderr);
    Ok(listing
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("List of available languages"))
        .map(str::to_owned)
        .collect())
}

/// The script Tesseract's orientation and script detection finds in the image; `None` when it
/// cannot tell (too little text, or the detection failed).
async fn detect_script(settings: &OcrSettings, image: Vec<u8>) -> Option<String> {
    let done = run(
        settings,
        &["stdin", "stdout", "--psm", "0", "-l", "osd"],
        image,
    )
    .await
    .ok()?;
    let report = format!("{}\n{}", String::from_utf8_lossy(&done.stdout), done.stderr);
    report
        .lines()
        .find_map(|l| l.strip_prefix("Script:"))
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
}

/// The script (as the orientation and script detection names it) of a Tesseract language.
fn script_of(language: &str) -> &'static str {
    match language {
        "rus" | "ukr" | "bel" | "bul" | "mkd" | "srp" | "kaz" | "kir" | "mon" | "tgk" | "tat" => {
            "Cyrillic"
        }
        "ell" | "grc" => "Greek",
        "ara" | "fas" | "urd" | "pus" | "uig" => "Arabic",
        "heb" | "yid" => "Hebrew",
        "hin" | "mar" | "nep" | "san" => "Devanagari",
        "chi_sim" | "chi_tra" => "Han",
        "jpn" => "Japanese",
        "kor" => "Hangul",
        "tha" => "Thai",
        "ben" | "asm" => "Bengali",
        "tam" => "Tamil",
        "tel" => "Telugu",
        "kan" => "Kannada",
        "mal" => "Malayalam",
        "guj" => "Gujarati",
        "pan" => "Gurmukhi",
        "kat" => "Georgian",
        "hye" => "Armenian",
        "amh" => "Ethiopic",
        "khm" => "Khmer",
        "lao" => "Lao",
        "mya" => "Myanmar",
        "sin" => "Sinhala",
        "tir" => "Ethiopic",
        _ => "Latin",
    }
}

/// Reads the image's text in `languages`.
async fn recognize(
    settings: &OcrSettings,
    languages: &str,
    image: Vec<u8>,
) -> Result<OcrText, ImageError> {
    let done = run(
        settings,
        &["stdin", "stdout", "-l", languages, "tsv"],
        image,
    )
    .await?;
    if !done.status.success() {
        let err = &done.stderr;
        if err.contains("Failed loading language") || err.contains("Error opening data file") {
            return Err(ImageError::OcrUnavailable(format!(
                "Tesseract has no data for language `{languages}`: install the Debian package `{}` (scripts/setup-system.sh installs `{TESSERACT_LANGUAGE_PACKAGE}`)",
                language_package(languages)
            )));
        }
        return Err(ImageError::OcrFailed(format!(
            "Tesseract exited with {}: {}",
            done.status,
            last_lines(err)
        )));
    }
    let (text, confidence) = parse_tsv(&String::from_utf8_lossy(&done.stdout));
    Ok(OcrText {
        text,
        confidence,
        language: languages.to_owned(),
    })
}

/// What a finished Tesseract run left.
struct Finished {
    stdout: Vec<u8>,
    stderr: String,
    status: std::process::ExitStatus,
}

/// Runs Tesseract with `args`, feeding it `input`, within the time allowed and the output caps.
async fn run(
    settings: &OcrSettings,
    args: &[&str],
    input: Vec<u8>,
) -> Result<Finished, ImageError> {
    let mut command = tokio::process::Command::new(&settings.program);
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    ChildEnvironment::inherited().apply(&mut command);
    // One thread per recognition: several images at once share the two cores fairly.
    command.env("OMP_THREAD_LIMIT", "1");
    ProcessGroup::prepare(&mut command);
    let mut child = command.spawn().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => ImageError::OcrUnavailable(format!(
            "Tesseract (`{}`) is not installed: install the Debian packages `{TESSERACT_PACKAGE}` and `{TESSERACT_LANGUAGE_PACKAGE}` (scripts/setup-system.sh does)",
            settings.program.display()
        )),
        _ => ImageError::OcrUnavailable(format!(
            "Tesseract (`{}`) could not be started: {e}",
            settings.program.display()
        )),
    })?;
    let mut group = ProcessGroup::led_by(child.id());
    let (Some(mut stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(ImageError::OcrFailed(
            "Tesseract's pipes could not be opened".to_owned(),
        ));
    };
    let feed = tokio::spawn(async move {
        // Tesseract may stop reading early on a bad image: a broken pipe is its error to report.
        let _ = stdin.write_all(&input).await;
        let _ = stdin.shutdown().await;
    });
    let read_out = async {
        let mut out = Vec::new();
        stdout
            .take(MAX_OCR_OUTPUT_BYTES + 1)
            .read_to_end(&mut out)
            .await
            .map(|_| out)
    };
    let read_err = async {
        let mut err = Vec::new();
        stderr
            .take(MAX_OCR_STDERR_BYTES)
            .read_to_end(&mut err)
            .await
            .map(|_| err)
    };
    let wait = async {
        let (out, err) = tokio::join!(read_out, read_err);
        let status = child.wait().await;
        (out, err, status)
    };
    let (out, err, status) = match tokio::time::timeout(settings.timeout, wait).await {
        Ok(done) => done,
        Err(_) => {
            if let Some(g) = group.as_mut() {
                g.kill();
            }
            feed.abort();
            return Err(ImageError::OcrFailed(format!(
                "Tesseract took longer than {} s",
                settings.timeout.as_secs()
            )));
        }
    };
    feed.abort();
    let stdout =
        out.map_err(|e| ImageError::OcrFailed(format!("reading Tesseract's output: {e}")))?;
    let stderr = String::from_utf8_lossy(&err.unwrap_or_default()).into_owned();
    let status =
        status.map_err(|e| ImageError::OcrFailed(format!("waiting for Tesseract: {e}")))?;
    if stdout.len() as u64 > MAX_OCR_OUTPUT_BYTES {
        return Err(ImageError::OcrFailed(format!(
            "Tesseract's output exceeds {MAX_OCR_OUTPUT_BYTES} bytes"
        )));
    }
    Ok(Finished {
        stdout,
        stderr,
        status,
    })
}

/// The Debian package of a language list's first language (`tesseract-ocr-deu` for `deu`).
fn language_package(languages: &str) -> String {
    let first = languages.split('+').next().unwrap_or("eng");
    format!(
        "tesseract-ocr-{}",
        first.replace('_', "-").to_ascii_lowercase()
    )
}

fn last_lines(text: &str) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(3)..].join(" / ")
}

/// Text and mean word confidence from Tesseract's TSV output (columns: level, page, block,
/// paragraph, line, word, left, top, width, height, conf, text; words are level 5).
fn parse_tsv(tsv: &str) -> (String, Option<f32>) {
    let mut text = String::new();
    let mut confidences = Vec::new();
    let mut last_line: Option<(&str, &str, &str, &str)> = None;
    for row in tsv.lines().skip(1) {
        let columns: Vec<&str> = row.splitn(12, '\t').collect();
        if columns.len() < 12 || columns[0] != "5" {
            continue;
        }
        let word = columns[11].trim();
        if word.is_empty() {
            continue;
        }
        let line = (columns[1], columns[2], columns[3], columns[4]);
        match last_line {
            Some(previous) if previous == line => text.push(' '),
            Some(previous) if (previous.0, previous.1, previous.2) == (line.0, line.1, line.2) => {
                text.push('\n')
            }
            Some(_) => text.push_str("\n\n"),
            None => {}
        }
        last_line = Some(line);
        text.push_str(word);
        if let Ok(c) = columns[10].parse::<f32>()
            && c >= 0.0
        {
            confidences.push(c);
        }
    }
    let confidence = (!confidences.is_empty())
        .then(|| confidences.iter().sum::<f32>() / confidences.len() as f32);
    (text, confidence)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn tsv_words_become_lines_and_paragraphs_with_a_mean_confidence() {
        let tsv = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n\
            1\t1\t0\t0\t0\t0\t0\t0\t100\t100\t-1\t\n\
            5\t1\t1\t1\t1\t1\t0\t0\t10\t10\t90\tHello\n\
            5\t1\t1\t1\t1\t2\t0\t0\t10\t10\t80\tworld\n\
            5\t1\t1\t1\t2\t1\t0\t0\t10\t10\t70\tnext\n\
            5\t1\t2\t1\t1\t1\t0\t0\t10\t10\t60\tapart\n";
        let (text, confidence) = parse_tsv(tsv);
        assert_eq!(text, "Hello world\nnext\n\napart");
        assert_eq!(confidence, Some(75.0));
        assert_eq!(parse_tsv("header\n"), (String::new(), None));
    }

    #[test]
    fn a_missing_language_names_its_package() {
        assert_eq!(language_package("deu+eng"), "tesseract-ocr-deu");
        assert_eq!(language_package("chi_sim"), "tesseract-ocr-chi-sim");
    }

    #[tokio::test]
    async fn a_missing_tesseract_names_the_debian_package() {
        let settings = OcrSettings {
            program: PathBuf::from("/nonexistent/tesseract"),
            ..OcrSettings::default()
        };
        let e = read_text(&settings, vec![1, 2, 3]).await.unwrap_err();
        assert!(matches!(e, ImageError::OcrUnavailable(_)));
        assert!(e.to_string().contains("tesseract-ocr"), "{e}");
    }
}
