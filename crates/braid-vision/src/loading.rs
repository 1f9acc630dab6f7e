//! Getting an image's bytes (base64, a `data:` or `http(s)` URL, or a workspace file), checking
//! what they are from the bytes themselves, and sizing the image down for a provider.

use std::fmt;
use std::io::Cursor;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use braid_llm::ImageLimits;
use braid_protocol::{ImageSource, PreparedImage};
use braid_tools::Workspace;
use tokio::io::AsyncReadExt;

use super::ImageError;
use super::fetch::{ImageHosts, fetch};

/// The most bytes of one image Braid loads, from any source.
pub const MAX_IMAGE_BYTES: usize = 20 * 1024 * 1024;

/// The longest edge, in pixels, of an image Braid decodes.
pub const MAX_IMAGE_EDGE: u32 = 16_384;

/// The most memory one decoded image may take.
const MAX_DECODED_BYTES: u64 = 512 * 1024 * 1024;

/// How long fetching an image from a URL may take.
pub const FETCH_TIMEOUT: Duration = Duration::from_secs(20);

/// The image formats Braid accepts, told apart by their first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageFormat {
    /// PNG.
    Png,
    /// JPEG.
    Jpeg,
    /// GIF.
    Gif,
    /// WebP.
    WebP,
}

impl ImageFormat {
    /// The format the bytes start with, if it is one Braid accepts.
    pub fn sniff(bytes: &[u8]) -> Option<Self> {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(Self::Png)
        } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            Some(Self::Jpeg)
        } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
            Some(Self::Gif)
        } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
            Some(Self::WebP)
        } else {
            None
        }
    }

    /// Its MIME type.
    pub fn media_type(self) -> &'static str {
        match self {
            Self::Png => "image/png",
            Self::Jpeg => "image/jpeg",
            Self::Gif => "image/gif",
            Self::WebP => "image/webp",
        }
    }

    fn codec(self) -> image::ImageFormat {
        match self {
            Self::Png => image::ImageFormat::Png,
            Self::Jpeg => image::ImageFormat::Jpeg,
            Self::Gif => image::ImageFormat::Gif,
            Self::WebP => image::ImageFormat::WebP,
        }
    }
}

impl fmt::Display for ImageFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Png => "PNG",
            Self::Jpeg => "JPEG",
            Self::Gif => "GIF",
            Self::WebP => "WebP",
        })
    }
}

/// An image's bytes, checked: an accepted format that decodes.
#[derive(Clone)]
pub struct LoadedImage {
    /// The bytes as loaded.
    pub bytes: Vec<u8>,
    /// Their format, from the bytes.
    pub format: ImageFormat,
    /// The decoded picture.
    pub picture: image::DynamicImage,
}

impl fmt::Debug for LoadedImage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoadedImage")
            .field("bytes", &self.bytes.len())
            .field("format", &self.format)
            .field("width", &self.picture.width())
            .field("height", &self.picture.height())
            .finish()
    }
}

impl LoadedImage {
    /// Checks `bytes`: size, format (from the bytes, whatever a name or header claims), and
    /// that they decode within the limits.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Self, ImageError> {
        if bytes.len() > MAX_IMAGE_BYTES {
            return Err(too_large(bytes.len()));
        }
        let Some(format) = ImageFormat::sniff(&bytes) else {
            let first_bytes = bytes
                .iter()
                .take(8)
                .map(|b| format!("{b:02x}"))
                .collect::<Vec<_>>()
                .join(" ");
            return Err(ImageError::UnsupportedFormat {
                first_bytes: if first_bytes.is_empty() {
                    "none: the image is empty".to_owned()
                } else {
                    first_bytes
                },
            });
        };
        let mut reader = image::ImageReader::with_format(Cursor::new(&bytes), format.codec());
        let mut limits = image::Limits::default();
        limits.max_image_width = Some(MAX_IMAGE_EDGE);
        limits.max_image_height = Some(MAX_IMAGE_EDGE);
        limits.max_alloc = Some(MAX_DECODED_BYTES);
        reader.limits(limits);
        let picture = reader.decode().map_err(|e| match e {
            image::ImageError::Limits(_) => ImageError::TooLarge {
                detail: format!(
                    "more than {MAX_IMAGE_EDGE} pixels on an edge, or more than {} MiB decoded",
                    MAX_DECODED_BYTES / (1024 * 1024)
                ),
            },
            other => ImageError::Corrupt {
                format,
                detail: other.to_string(),
            },
        })?;
        Ok(Self {
            bytes,
            format,
            picture,
        })
    }

    /// The bytes as PNG or JPEG (which every OCR build reads); others are re-encoded as PNG.
    pub fn png_or_jpeg(&self) -> Result<Vec<u8>, ImageError> {
        match self.format {
            ImageFormat::Png | ImageFormat::Jpeg => Ok(self.bytes.clone()),
            _ => encode(&self.picture, image::ImageFormat::Png, self.format),
        }
    }
}

/// An image of `len` bytes, above [`MAX_IMAGE_BYTES`].
pub(super) fn too_large(len: usize) -> ImageError {
    ImageError::TooLarge {
        detail: format!(
            "{len} bytes or more, above the limit of {} MiB",
            MAX_IMAGE_BYTES / (1024 * 1024)
        ),
    }
}

fn encode(
    picture: &image::DynamicImage,
    codec: image::ImageFormat,
    original: ImageFormat,
) -> Result<Vec<u8>, ImageError> {
    let mut out = Vec::new();
    let result = match codec {
        image::ImageFormat::Jpeg => {
            let encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 85);
            image::DynamicImage::ImageRgb8(picture.to_rgb8()).write_with_encoder(encoder)
        }
        _ => picture.write_to(&mut Cursor::new(&mut out), codec),
    };
    result.map_err(|e| ImageError::Corrupt {
        format: original,
        detail: format!("it could not be re-encoded: {e}"),
    })?;
    Ok(out)
}

/// Loads the image a message names. A file must lie inside the workspace (the workspace's
/// rules: canonical paths, no `..` or symlinks leaving it); a URL is fetched with a timeout and
/// a size cap, and never from an internal address that `hosts` does not allow.
pub async fn load_image(
    source: &ImageSource,
    workspace: Option<&Workspace>,
    workspace_problem: Option<&str>,
    hosts: &ImageHosts,
) -> Result<LoadedImage, ImageError> {
    let bytes = match source {
        ImageSource::Base64 { data, .. } => decode_base64(data, "the base64 data")?,
        ImageSource::Url { url } => match url.strip_prefix("data:") {
            Some(rest) => {
                let (header, data) = rest
                    .split_once(',')
                    .ok_or_else(|| unreadable("a data: URL", "it has no `,` before its data"))?;
                if !header.ends_with(";base64") {
                    return Err(unreadable(
                        "a data: URL",
                        "only base64 data: URLs (`data:image/png;base64,...`) are accepted",
                    ));
                }
                decode_base64(data, "a data: URL")?
            }
            None => fetch(url, hosts).await?,
        },
        ImageSource::FilePath { path } => {
            let Some(workspace) = workspace else {
                return Err(unreadable(
                    path,
                    workspace_problem
                        .unwrap_or("this context has no workspace: set `workspace` in its config"),
                ));
            };
            read_file(workspace, path).await?
        }
    };
    let image = tokio::task::spawn_blocking(move || LoadedImage::from_bytes(bytes))
        .await
        .map_err(|e| ImageError::OcrFailed(format!("the image decoder stopped: {e}")))??;
    Ok(image)
}

/// An image that could not be read from `location`, and why.
pub(super) fn unreadable(location: &str, reason: &str) -> ImageError {
    ImageError::Unreadable {
        location: location.to_owned(),
        reason: reason.to_owned(),
    }
}

fn decode_base64(data: &str, what: &str) -> Result<Vec<u8>, ImageError> {
    if data.len() / 4 * 3 > MAX_IMAGE_BYTES + 3 {
        return Err(too_large(data.len() / 4 * 3));
    }
    let compact: String = data.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    BASE64
        .decode(compact.as_bytes())
        .map_err(|e| unreadable(what, &format!("it is not valid base64: {e}")))
}

async fn read_file(workspace: &Workspace, path: &str) -> Result<Vec<u8>, ImageError> {
    let real = workspace
        .resolve(path)
        .map_err(|e| unreadable(path, &e.to_string()))?;
    let file = tokio::fs::File::open(&real)
        .await
        .map_err(|e| unreadable(path, &e.to_string()))?;
    let metadata = file
        .metadata()
        .await
        .map_err(|e| unreadable(path, &e.to_string()))?;
    if !metadata.is_file() {
        return Err(unreadable(path, "it is not a file"));
    }
    if metadata.len() > MAX_IMAGE_BYTES as u64 {
        return Err(too_large(
            usize::try_from(metadata.len()).unwrap_or(usize::MAX),
        ));
    }
    let mut bytes = Vec::new();
    file.take(MAX_IMAGE_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .await
        .map_err(|e| unreadable(path, &e.to_string()))?;
    Ok(bytes)
}

/// The image as a provider with `limits` is to be sent it, or `None` when the source can be
/// sent as it is (base64 of the right type within the limits). Images above the limits are
/// sized down (PNG stays PNG, others become JPEG) until they fit.
pub fn prepare_for_vision(
    image: &LoadedImage,
    source: &ImageSource,
    limits: ImageLimits,
) -> Result<Option<PreparedImage>, ImageError> {
    let (width, height) = (image.picture.width(), image.picture.height());
    let fits = width.max(height) <= limits.max_edge && image.bytes.len() <= limits.max_bytes;
    if fits {
        let as_is = matches!(source, ImageSource::Base64 { media_type, .. } if media_type == image.format.media_type());
        return Ok((!as_is).then(|| PreparedImage {
            media_type: image.format.media_type().to_owned(),
            data: BASE64.encode(&image.bytes),
            width,
            height,
            resized: false,
        }));
    }
    let codec = match image.format {
        ImageFormat::Png => image::ImageFormat::Png,
        _ => image::ImageFormat::Jpeg,
    };
    let mut edge = limits.max_edge.min(width.max(height));
    // Halving the edge quarters the bytes: a few rounds fit any image the decoder accepted.
    for _ in 0..6 {
        let smaller = image
            .picture
            .resize(edge, edge, image::imageops::FilterType::Triangle);
        let mut bytes = encode(&smaller, codec, image.format)?;
        let mut media_type = if codec == image::ImageFormat::Png {
            "image/png"
        } else {
            "image/jpeg"
        };
        if bytes.len() > limits.max_bytes && codec == image::ImageFormat::Png {
            bytes = encode(&smaller, image::ImageFormat::Jpeg, image.format)?;
            media_type = "image/jpeg";
        }
        if bytes.len() <= limits.max_bytes {
            return Ok(Some(PreparedImage {
                media_type: media_type.to_owned(),
                data: BASE64.encode(&bytes),
                width: smaller.width(),
                height: smaller.height(),
                resized: true,
            }));
        }
        edge /= 2;
    }
    Err(ImageError::TooLarge {
        detail: format!(
            "it cannot be sized down under the provider's {} bytes",
            limits.max_bytes
        ),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn png(width: u32, height: u32) -> Vec<u8> {
        let picture =
            image::DynamicImage::ImageRgb8(image::RgbImage::from_fn(width, height, |x, y| {
                image::Rgb([(x % 256) as u8, (y % 256) as u8, 128])
            }));
        let mut out = Vec::new();
        picture
            .write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png)
            .unwrap();
        out
    }

    #[test]
    fn formats_are_told_from_the_bytes() {
        assert_eq!(ImageFormat::sniff(&png(2, 2)), Some(ImageFormat::Png));
        assert_eq!(ImageFormat::sniff(b"GIF89a...."), Some(ImageFormat::Gif));
        assert_eq!(
            ImageFormat::sniff(b"RIFF\0\0\0\0WEBPVP8 "),
            Some(ImageFormat::WebP)
        );
        assert_eq!(
            ImageFormat::sniff(&[0xFF, 0xD8, 0xFF, 0xE0]),
            Some(ImageFormat::Jpeg)
        );
        assert_eq!(ImageFormat::sniff(b"%PDF-1.7"), None);
    }

    #[test]
    fn other_formats_and_damaged_images_are_refused_by_name() {
        let e = LoadedImage::from_bytes(b"%PDF-1.7 not an image".to_vec()).unwrap_err();
        assert!(
            e.to_string().contains("not a PNG, JPEG, GIF or WebP"),
            "{e}"
        );
        let mut broken = png(40, 40);
        broken.truncate(60);
        let e = LoadedImage::from_bytes(broken).unwrap_err();
        assert!(
            matches!(
                e,
                ImageError::Corrupt {
                    format: ImageFormat::Png,
                    ..
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn images_above_the_limit_are_sized_down_keeping_their_shape() {
        let image = LoadedImage::from_bytes(png(3000, 1500)).unwrap();
        let source = ImageSource::FilePath {
            path: "big.png".into(),
        };
        let prepared = prepare_for_vision(&image, &source, ImageLimits::ANTHROPIC)
            .unwrap()
            .unwrap();
        assert!(prepared.resized);
        assert_eq!((prepared.width, prepared.height), (1568, 784));
        let small = LoadedImage::from_bytes(png(300, 200)).unwrap();
        let prepared = prepare_for_vision(&small, &source, ImageLimits::OPENAI)
            .unwrap()
            .unwrap();
        assert!(!prepared.resized);
        assert_eq!(prepared.media_type, "image/png");
    }

    #[test]
    fn base64_within_the_limits_is_sent_as_it_is() {
        let bytes = png(10, 10);
        let image = LoadedImage::from_bytes(bytes.clone()).unwrap();
        let source = ImageSource::Base64 {
            media_type: "image/png".into(),
            data: BASE64.encode(&bytes),
        };
        assert_eq!(
            prepare_for_vision(&image, &source, ImageLimits::OPENAI).unwrap(),
            None
        );
        let mislabelled = ImageSource::Base64 {
            media_type: "image/jpeg".into(),
            data: BASE64.encode(&bytes),
        };
        let prepared = prepare_for_vision(&image, &mislabelled, ImageLimits::OPENAI)
            .unwrap()
            .unwrap();
        assert_eq!(prepared.media_type, "image/png");
    }
}
