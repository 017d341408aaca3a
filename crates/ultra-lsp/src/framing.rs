//! The base protocol: JSON messages behind `Content-Length` headers.

use std::io::{self, BufRead, Write};

use serde_json::Value;

/// A message larger than this is refused (a server gone wrong, not a real answer).
pub const MAX_MESSAGE: usize = 64 << 20;

/// Read one message; `None` at the end of the stream.
pub fn read_message(r: &mut impl BufRead) -> io::Result<Option<Value>> {
    let mut len = None;
    let mut line = String::new();
    loop {
        line.clear();
        if r.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        let header = line.trim_end_matches(['\r', '\n']);
        if header.is_empty() {
            if len.is_some() {
                break;
            }
            // Blank lines before a header: tolerated.
            continue;
        }
        if let Some((name, value)) = header.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            len = value.trim().parse::<usize>().ok();
        }
    }
    let len = len.unwrap_or(0);
    if len > MAX_MESSAGE {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a message of {len} bytes (at most {MAX_MESSAGE})"),
        ));
    }
    let mut body = vec![0; len];
    r.read_exact(&mut body)?;
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// Write one message.
pub fn write_message(w: &mut impl Write, msg: &Value) -> io::Result<()> {
    let body = serde_json::to_vec(msg).map_err(io::Error::other)?;
    write!(w, "Content-Length: {}\r\n\r\n", body.len())?;
    w.write_all(&body)?;
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_limits() {
        let mut buf = Vec::new();
        let msg = serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": "é"});
        write_message(&mut buf, &msg).unwrap_or_else(|e| panic!("{e}"));
        write_message(&mut buf, &msg).unwrap_or_else(|e| panic!("{e}"));
        let mut r = io::BufReader::new(&buf[..]);
        for _ in 0..2 {
            let got = read_message(&mut r).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(got.as_ref(), Some(&msg));
        }
        assert!(matches!(read_message(&mut r), Ok(None)));

        let huge = format!("Content-Length: {}\r\n\r\n", MAX_MESSAGE + 1);
        let mut r = io::BufReader::new(huge.as_bytes());
        assert!(read_message(&mut r).is_err());

        let bad = b"Content-Type: x\r\ncontent-length: 2\r\n\r\n{]";
        let mut r = io::BufReader::new(&bad[..]);
        assert!(read_message(&mut r).is_err());
    }
}
