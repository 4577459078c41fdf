//! Regenerates include/hbclient.h from this crate's exports:
//! `cargo run -p hbclient-ffi --example gen_header`.

#[path = "../gen/header.rs"]
mod header;

fn main() {
    let path = header::header_path();
    std::fs::write(&path, header::generate()).expect("write include/hbclient.h");
    println!("wrote {}", path.display());
}
