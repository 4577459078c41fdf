//! Regenerates include/hbclient.h and abi/hbclient.abi (its declarations, one a line) from this
//! crate's exports:
//! `cargo run -p hbclient-ffi --example gen_header`.

#[path = "../gen/header.rs"]
mod header;

fn main() {
    let path = header::header_path();
    let text = header::generate();
    std::fs::write(&path, &text).expect("write include/hbclient.h");
    println!("wrote {}", path.display());
    let abi = header::abi_path();
    std::fs::create_dir_all(abi.parent().expect("abi/ directory")).expect("create abi/");
    std::fs::write(&abi, header::abi_list(&text)).expect("write abi/hbclient.abi");
    println!("wrote {}", abi.display());
}
