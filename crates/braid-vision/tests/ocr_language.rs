//! The language of OCR (seed 000 "OCR recognition": language detection is attempted) with the
//! real Tesseract and the language data scripts/setup-system.sh installs (English, Russian, and
//! the script detection): detected when the settings name none, and the one used is reported.

use braid_vision::{OcrSettings, read_text};

use crate::pictures::text_png;

const ENGLISH: &[&str] = &["INVOICE 4471", "Total due 318 EUR"];
const RUSSIAN: &[&str] = &["СЧЁТ НОМЕР 4471", "Итого к оплате 318 рублей"];

#[tokio::test]
async fn the_language_of_the_text_is_detected_and_reported() {
    let settings = OcrSettings::default();
    assert_eq!(settings.languages, None, "detection is the default");

    let english = read_text(&settings, text_png(ENGLISH)).await.unwrap();
    assert_eq!(english.language, "eng");
    assert!(english.text.contains("INVOICE 4471"), "{}", english.text);

    let russian = read_text(&settings, text_png(RUSSIAN)).await.unwrap();
    assert_eq!(russian.language, "rus", "{}", russian.text);
    assert!(russian.text.contains("Итого"), "{}", russian.text);
    assert!(russian.text.contains("рублей"), "{}", russian.text);
}

#[tokio::test]
async fn a_language_that_is_set_is_used_and_reported() {
    let settings = OcrSettings {
        languages: Some("eng".into()),
        ..OcrSettings::default()
    };
    let read = read_text(&settings, text_png(RUSSIAN)).await.unwrap();
    assert_eq!(read.language, "eng");
    assert!(
        !read.text.contains("рублей"),
        "English data cannot read Cyrillic: {}",
        read.text
    );

    let missing = OcrSettings {
        languages: Some("kat".into()),
        ..OcrSettings::default()
    };
    let e = read_text(&missing, text_png(ENGLISH)).await.unwrap_err();
    assert!(e.to_string().contains("tesseract-ocr-kat"), "{e}");
}
