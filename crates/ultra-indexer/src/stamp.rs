//! A file's stamp: what the disk said of it when it was indexed, compared before an answer
//! to find what changed without reading the files.

use ultra_index::build;

/// The change time kept for a file whose stamp cannot be trusted (see [`Stamp::settled`]).
const RECHECK: u128 = u128::MAX;

/// Wall-clock time in nanoseconds since the epoch.
pub(crate) fn now_ns() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

/// What was on disk when a file was indexed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    pub(crate) len: u64,
    pub(crate) changed_ns: u128,
}

impl Stamp {
    /// The size and change time of a file now.
    pub(crate) fn of(path: &std::path::Path) -> Option<Stamp> {
        let m = std::fs::metadata(path).ok()?;
        Some(Stamp {
            len: m.len(),
            changed_ns: build::changed_ns(&m).unwrap_or(0),
        })
    }

    /// The stamp to keep for a file read at `read_ns` or later. A file can change again
    /// within the clock tick its stamp has, and a write of the same size then leaves the
    /// stamp as it is: a file read within a tick of its change is kept with a stamp that
    /// matches nothing, so the next walk reads it again (git's "racily clean" files). The
    /// tick is taken as 20 ms, or 2 s on a file system that keeps whole seconds.
    pub(crate) fn settled(self, read_ns: u128) -> Stamp {
        const NS: u128 = 1_000_000_000;
        let tick = if self.changed_ns.is_multiple_of(NS) {
            2 * NS
        } else {
            NS / 50
        };
        if read_ns < self.changed_ns.saturating_add(tick) {
            Stamp {
                changed_ns: RECHECK,
                ..self
            }
        } else {
            self
        }
    }

    /// What the walk saw of a file (it does not follow links, and only regular files are
    /// found), or the file now.
    pub(crate) fn of_found(f: &build::Found) -> Option<Stamp> {
        match f.changed_ns {
            Some(changed_ns) => Some(Stamp {
                len: f.len,
                changed_ns,
            }),
            None => Stamp::of(&f.abs),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{RECHECK, Stamp};

    #[test]
    fn a_stamp_read_within_its_tick_is_kept_as_racy() {
        let s = |changed_ns| Stamp { len: 5, changed_ns };
        let ms = 1_000_000u128;
        let t = 1_700_000_000_123_456_789u128;
        assert_eq!(s(t).settled(t + 5 * ms).changed_ns, RECHECK);
        assert_eq!(s(t).settled(t + 25 * ms), s(t));
        // Whole seconds: a coarse file system, a longer tick.
        let whole = 1_700_000_000_000_000_000u128;
        assert_eq!(s(whole).settled(whole + 500 * ms).changed_ns, RECHECK);
        assert_eq!(s(whole).settled(whole + 2_500 * ms), s(whole));
        // Nothing matches a racy stamp.
        assert_ne!(s(t).settled(t), s(t));
    }
}
