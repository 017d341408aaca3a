//! One posting list's encoding.

/// One trigram's file ids, ascending, as LEB128 varints of their differences (about a
/// quarter of the size of `u32`s on a real tree).
#[derive(Debug, Default)]
pub(super) struct Postings {
    pub(super) bytes: Vec<u8>,
    pub(super) last: u32,
    pub(super) len: u32,
}

impl Postings {
    /// Append `id`, greater than every id already in.
    pub(super) fn push(&mut self, id: u32) {
        let mut d = if self.len == 0 { id } else { id - self.last };
        while d >= 0x80 {
            self.bytes.push((d as u8) | 0x80);
            d >>= 7;
        }
        self.bytes.push(d as u8);
        self.last = id;
        self.len += 1;
    }

    #[cfg(test)]
    pub(super) fn ids(&self) -> impl Iterator<Item = u32> + '_ {
        decode(&self.bytes)
    }
}

/// The ids a [`Postings`] encoding holds.
pub(super) fn decode(bytes: &[u8]) -> impl Iterator<Item = u32> + '_ {
    let mut at = 0;
    let mut id = 0u32;
    std::iter::from_fn(move || {
        let mut d = 0u32;
        let mut shift = 0;
        loop {
            let b = *bytes.get(at)?;
            at += 1;
            d |= u32::from(b & 0x7f) << shift;
            if b < 0x80 {
                break;
            }
            shift += 7;
        }
        id = id.wrapping_add(d);
        Some(id)
    })
}
