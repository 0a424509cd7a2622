//! `/media/{id}?w=`: width-limited copies of PNG and JPEG made once and kept; SVG, GIF and
//! WebP served as they are; unknown widths 404; a deleted image is gone in every width.

use std::io::Cursor;

use amora_store::MediaObject;
use image::{ImageFormat, RgbImage};

use crate::helpers::spawn_app;

/// A picture with detail everywhere, so the resized copy is a real resize.
fn picture(width: u32, height: u32, format: ImageFormat) -> Vec<u8> {
    let image =
        RgbImage::from_fn(width, height, |x, y| image::Rgb([(x % 256) as u8, (y % 256) as u8, ((x ^ y) % 256) as u8]));
    let mut out = Cursor::new(Vec::new());
    image.write_to(&mut out, format).unwrap();
    out.into_inner()
}

async fn put(app: &crate::helpers::TestApp, id: &str, content_type: &str, bytes: Vec<u8>) {
    app.store.media.put(id, MediaObject { content_type: content_type.into(), bytes }).await.unwrap();
}

#[actix_rt::test]
async fn a_png_is_resized_once_to_the_asked_width_and_kept() {
    let app = spawn_app().await;
    let original = picture(1200, 900, ImageFormat::Png);
    put(&app, "pic-test-1", "image/png", original.clone()).await;

    let response = app.get("/media/pic-test-1?w=750").await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "image/png");
    let bytes = response.bytes().await.unwrap().to_vec();
    let resized = image::load_from_memory_with_format(&bytes, ImageFormat::Png).unwrap();
    assert_eq!((resized.width(), resized.height()), (750, 562));
    assert!(bytes.len() < original.len());

    // Kept: the store holds the variant, and the next request gets the same bytes.
    let kept = app.store.media.get_variant("pic-test-1", 750).await.unwrap().expect("the variant is kept");
    assert_eq!(kept.bytes, bytes);
    assert_eq!(app.get("/media/pic-test-1?w=750").await.bytes().await.unwrap().to_vec(), bytes);

    // Every allowed width; the original without `w`.
    for width in [160, 320, 480, 1080] {
        let bytes = app.get(&format!("/media/pic-test-1?w={width}")).await.bytes().await.unwrap();
        let copy = image::load_from_memory(&bytes).unwrap();
        assert_eq!(copy.width(), width);
    }
    assert_eq!(app.get("/media/pic-test-1").await.bytes().await.unwrap().to_vec(), original);
}

#[actix_rt::test]
async fn other_widths_are_not_found_and_narrow_images_are_not_enlarged() {
    let app = spawn_app().await;
    put(&app, "pic-test-2", "image/png", picture(300, 200, ImageFormat::Png)).await;
    for w in ["751", "0", "abc", "-160", "99999999999"] {
        assert_eq!(app.get(&format!("/media/pic-test-2?w={w}")).await.status(), 404, "w={w}");
    }
    let small = app.get("/media/pic-test-2?w=480").await.bytes().await.unwrap();
    assert_eq!(small.to_vec(), picture(300, 200, ImageFormat::Png), "the original, not enlarged");
    let smaller = image::load_from_memory(&app.get("/media/pic-test-2?w=160").await.bytes().await.unwrap()).unwrap();
    assert_eq!((smaller.width(), smaller.height()), (160, 106));
}

#[actix_rt::test]
async fn jpeg_stays_jpeg_and_svg_gif_webp_are_served_as_they_are() {
    let app = spawn_app().await;
    put(&app, "pic-test-3", "image/jpeg", picture(1600, 1200, ImageFormat::Jpeg)).await;
    let response = app.get("/media/pic-test-3?w=320").await;
    assert_eq!(response.headers()["content-type"], "image/jpeg");
    let copy = image::load_from_memory_with_format(&response.bytes().await.unwrap(), ImageFormat::Jpeg).unwrap();
    assert_eq!((copy.width(), copy.height()), (320, 240));

    // A catalogue portrait (SVG) is the same document at any width.
    let card = app.character_list(1, 1, 0).await.data[0].clone();
    let photo = card["characterPhoto"].as_str().unwrap().to_owned();
    let plain = app.get(&photo).await.text().await.unwrap();
    let response = app.get(&format!("{photo}?w=750")).await;
    assert_eq!(response.headers()["content-type"], "image/svg+xml");
    assert_eq!(response.text().await.unwrap(), plain);

    // GIF and WebP (possibly animated) are never resized.
    // A 1x1 GIF89a; served as it is, so never decoded.
    let gif =
        b"GIF89a\x01\0\x01\0\x80\0\0\xff\xff\xff\0\0\0!\xf9\x04\x01\0\0\0\0,\0\0\0\0\x01\0\x01\0\0\x02\x02D\x01\0;"
            .to_vec();
    put(&app, "pic-test-4", "image/gif", gif.clone()).await;
    assert_eq!(app.get("/media/pic-test-4?w=320").await.bytes().await.unwrap().to_vec(), gif);
    let webp = b"RIFF\x1a\0\0\0WEBPVP8L\x0d\0\0\0\x2f\0\0\0\x10\x07\x10\x11\x11\x88\x88\xfe\x07\0".to_vec();
    put(&app, "pic-test-5", "image/webp", webp.clone()).await;
    assert_eq!(app.get("/media/pic-test-5?w=750").await.bytes().await.unwrap().to_vec(), webp);
    assert!(app.store.media.get_variant("pic-test-4", 320).await.unwrap().is_none());
}

#[actix_rt::test]
async fn a_deleted_image_is_gone_in_every_width() {
    let app = spawn_app().await;
    put(&app, "pic-test-6", "image/png", picture(1200, 800, ImageFormat::Png)).await;
    for w in [160, 750] {
        assert_eq!(app.get(&format!("/media/pic-test-6?w={w}")).await.status(), 200);
    }
    assert!(app.store.media.delete("pic-test-6").await.unwrap());
    for path in ["/media/pic-test-6", "/media/pic-test-6?w=160", "/media/pic-test-6?w=750"] {
        assert_eq!(app.get(path).await.status(), 404, "{path}");
    }
    assert!(app.store.media.get_variant("pic-test-6", 750).await.unwrap().is_none());
}

#[actix_rt::test]
async fn a_stored_image_that_cannot_be_decoded_is_served_as_it_is() {
    let app = spawn_app().await;
    put(&app, "pic-test-7", "image/png", b"not really a png".to_vec()).await;
    let response = app.get("/media/pic-test-7?w=320").await;
    assert_eq!(response.status(), 200);
    assert_eq!(response.bytes().await.unwrap().to_vec(), b"not really a png");
}
