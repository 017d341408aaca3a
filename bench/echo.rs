//! The transport floor: a Rust std `UnixStream` line echo, one thread per connection.
//! Build: `rustc -O --edition 2021 -o target/bench/echo bench/echo.rs` (no dependencies).
//! Run: `echo <socket>`; prints `ready <socket>` once it accepts connections.
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};

fn serve(stream: UnixStream) {
    let mut writer = match stream.try_clone() {
        Ok(w) => w,
        Err(_) => return,
    };
    let mut reader = BufReader::with_capacity(1 << 16, stream);
    let mut line = Vec::with_capacity(1024);
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                if writer.write_all(&line).is_err() {
                    return;
                }
            }
        }
    }
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: echo <socket>");
    let _ = std::fs::remove_file(&path);
    let listener = UnixListener::bind(&path).expect("bind");
    println!("ready {path}");
    let _ = std::io::stdout().flush();
    for stream in listener.incoming() {
        match stream {
            Ok(s) => {
                std::thread::spawn(move || serve(s));
            }
            Err(_) => continue,
        }
    }
}
