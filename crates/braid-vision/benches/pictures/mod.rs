//! Pictures with known text for the OCR bench here and braid-context's image tests (which include
//! this file), rendered with DejaVu Sans (the Debian package `fonts-dejavu-core`, installed by
//! scripts/setup-system.sh).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Cursor;

use ab_glyph::{Font, FontRef, PxScale, ScaleFont};
use image::{Rgb, RgbImage};

/// The font the pictures are rendered in.
pub const FONT_PATH: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

/// Draws `text` at (`x`, `y`) (top-left of the line) in `color`, `size` pixels high.
pub fn draw_text(
    picture: &mut RgbImage,
    font: &FontRef<'_>,
    text: &str,
    x: f32,
    y: f32,
    size: f32,
    color: [u8; 3],
) {
    let scaled = font.as_scaled(PxScale::from(size));
    let baseline = y + scaled.ascent();
    let mut caret = x;
    let mut previous = None;
    for ch in text.chars() {
        let id = scaled.glyph_id(ch);
        if let Some(p) = previous {
            caret += scaled.kern(p, id);
        }
        let glyph =
            id.with_scale_and_position(PxScale::from(size), ab_glyph::point(caret, baseline));
        caret += scaled.h_advance(id);
        previous = Some(id);
        let Some(outlined) = font.outline_glyph(glyph) else {
            continue;
        };
        let bounds = outlined.px_bounds();
        outlined.draw(|gx, gy, coverage| {
            let px = bounds.min.x as i64 + i64::from(gx);
            let py = bounds.min.y as i64 + i64::from(gy);
            if px < 0
                || py < 0
                || px >= i64::from(picture.width())
                || py >= i64::from(picture.height())
            {
                return;
            }
            let pixel = picture.get_pixel_mut(px as u32, py as u32);
            for (channel, target) in pixel.0.iter_mut().zip(color) {
                let under = f32::from(*channel);
                *channel = (under + (f32::from(target) - under) * coverage).round() as u8;
            }
        });
    }
}

fn font_bytes() -> Vec<u8> {
    std::fs::read(FONT_PATH).unwrap_or_else(|e| {
        panic!("{FONT_PATH} is missing ({e}): run scripts/setup-system.sh (fonts-dejavu-core)")
    })
}

fn png(picture: &RgbImage) -> Vec<u8> {
    let mut out = Vec::new();
    picture
        .write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png)
        .unwrap();
    out
}

/// A white PNG with `lines` in black, 40 px high, one under the other.
pub fn text_png(lines: &[&str]) -> Vec<u8> {
    let bytes = font_bytes();
    let font = FontRef::try_from_slice(&bytes).unwrap();
    let height = 40 + 60 * lines.len() as u32;
    let mut picture = RgbImage::from_pixel(900, height, Rgb([255, 255, 255]));
    for (i, line) in lines.iter().enumerate() {
        draw_text(
            &mut picture,
            &font,
            line,
            30.0,
            20.0 + 60.0 * i as f32,
            40.0,
            [0, 0, 0],
        );
    }
    png(&picture)
}

/// A 1,000 x 600 picture that looks like a screenshot: a title bar, a sidebar of file names,
/// and a pane of log lines in two colors, with `lines` (about a dozen) as the pane's text.
pub fn screenshot_png(lines: &[&str]) -> Vec<u8> {
    let bytes = font_bytes();
    let font = FontRef::try_from_slice(&bytes).unwrap();
    let mut picture = RgbImage::from_pixel(1000, 600, Rgb([250, 250, 250]));
    for x in 0..1000 {
        for y in 0..36 {
            picture.put_pixel(x, y, Rgb([45, 52, 64]));
        }
    }
    for x in 0..220 {
        for y in 36..600 {
            picture.put_pixel(x, y, Rgb([236, 239, 244]));
        }
    }
    draw_text(
        &mut picture,
        &font,
        "Build output - braid",
        14.0,
        8.0,
        18.0,
        [236, 239, 244],
    );
    for (i, name) in [
        "src/lib.rs",
        "src/parser.rs",
        "src/lexer.rs",
        "tests/parse.rs",
        "Cargo.toml",
    ]
    .iter()
    .enumerate()
    {
        draw_text(
            &mut picture,
            &font,
            name,
            16.0,
            56.0 + 30.0 * i as f32,
            16.0,
            [59, 66, 82],
        );
    }
    for (i, line) in lines.iter().enumerate() {
        let color = if i % 3 == 2 {
            [191, 97, 106]
        } else {
            [46, 52, 64]
        };
        draw_text(
            &mut picture,
            &font,
            line,
            240.0,
            52.0 + 40.0 * i as f32,
            20.0,
            color,
        );
    }
    png(&picture)
}
