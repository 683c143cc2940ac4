//! PNG charts: a chart's SVG rasterised by resvg with the bundled font, encoded as PNG with
//! its dots per inch recorded, so that the PNG is the SVG's picture on any machine.

use super::{FONT, e};

/// Encodes an RGB buffer as PNG.
pub(crate) fn png_bytes(
    rgb: &[u8],
    (w, h): (u32, u32),
    scale: f32,
) -> std::result::Result<Vec<u8>, String> {
    use image::ImageEncoder;
    let mut png = Vec::new();
    image::codecs::png::PngEncoder::new(&mut png)
        .write_image(rgb, w, h, image::ColorType::Rgb8)
        .map_err(e)?;
    Ok(with_dpi(png, 96.0 * scale as f64))
}

/// The PNG with a `pHYs` chunk after its header saying `dpi` dots per inch, so that a chart
/// drawn at `--chart-scale 2` is placed at the size of a scale-1 one. By hand because the
/// image crate's encoder writes no physical size; the chunk is 9 bytes and a CRC.
fn with_dpi(png: Vec<u8>, dpi: f64) -> Vec<u8> {
    // Signature (8 bytes) and IHDR (length, type, 13 bytes of data, CRC): 33 bytes.
    const AFTER_IHDR: usize = 33;
    if png.len() < AFTER_IHDR || &png[12..16] != b"IHDR" {
        return png;
    }
    let per_metre = (dpi / 0.0254).round() as u32;
    let mut chunk = Vec::with_capacity(21);
    chunk.extend_from_slice(&9u32.to_be_bytes());
    chunk.extend_from_slice(b"pHYs");
    chunk.extend_from_slice(&per_metre.to_be_bytes());
    chunk.extend_from_slice(&per_metre.to_be_bytes());
    chunk.push(1); // the unit: the metre
    let crc = crc32fast::hash(&chunk[4..]);
    chunk.extend_from_slice(&crc.to_be_bytes());
    let mut out = Vec::with_capacity(png.len() + chunk.len());
    out.extend_from_slice(&png[..AFTER_IHDR]);
    out.extend_from_slice(&chunk);
    out.extend_from_slice(&png[AFTER_IHDR..]);
    out
}

/// The PNG of a chart: its SVG rasterised by resvg at `scale` pixels per SVG unit onto a
/// white `w` x `h` canvas, the text shaped (kerning, placement) from the bundled DejaVu Sans
/// alone, so the PNG is the SVG's picture on any machine. Why not plotters' bitmap backend:
/// it places glyphs one by one without kerning ("1 00,000 games", "wei ghted").
pub(crate) fn rasterize(
    svg: &str,
    (w, h): (u32, u32),
    scale: f32,
) -> std::result::Result<Vec<u8>, String> {
    use resvg::{tiny_skia, usvg};
    static OPTIONS: std::sync::OnceLock<usvg::Options<'static>> = std::sync::OnceLock::new();
    let opt = OPTIONS.get_or_init(|| {
        let mut db = usvg::fontdb::Database::new();
        db.load_font_data(FONT.to_vec());
        db.set_sans_serif_family("DejaVu Sans");
        usvg::Options {
            font_family: "DejaVu Sans".into(),
            fontdb: std::sync::Arc::new(db),
            ..usvg::Options::default()
        }
    });
    let tree = usvg::Tree::from_str(svg, opt).map_err(e)?;
    let mut pixmap = tiny_skia::Pixmap::new(w.max(1), h.max(1))
        .ok_or_else(|| format!("cannot draw {w}x{h} pixels"))?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    // Opaque pixels: premultiplied and straight RGB are the same.
    let rgb: Vec<u8> = (pixmap.data().chunks_exact(4))
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect();
    png_bytes(&rgb, (w.max(1), h.max(1)), scale)
}

#[cfg(test)]
mod tests {
    /// A chart's PNG says its dots per inch (96 at scale 1, 192 at 2), in a chunk a decoder
    /// checks, so a scale-2 chart is placed at a scale-1 chart's size.
    #[test]
    fn pngs_carry_their_dots_per_inch() {
        let rgb = vec![255u8; 3 * 4 * 2];
        for (scale, per_metre) in [(1.0, 3780u32), (2.0, 7559)] {
            let png = super::png_bytes(&rgb, (4, 2), scale).unwrap();
            let at = png
                .windows(4)
                .position(|w| w == b"pHYs")
                .expect("a pHYs chunk");
            assert_eq!(png[at - 4..at], 9u32.to_be_bytes());
            assert_eq!(png[at + 4..at + 8], per_metre.to_be_bytes());
            assert_eq!(png[at + 8..at + 12], per_metre.to_be_bytes());
            assert_eq!(png[at + 12], 1, "unit: the metre");
            let img = image::load_from_memory(&png).expect("a valid PNG, CRC included");
            assert_eq!((img.width(), img.height()), (4, 2));
        }
    }
}
