//! A trigram index of text files, as code-search engines keep one (Russ Cox, "Regular
//! Expression Matching with a Trigram Index"; zoekt, livegrep): for every three-byte
//! sequence, the files that hold it. A query is planned into the trigrams every match must
//! contain (ANDs and ORs of them, [`Query`]); only the files that hold them are candidates,
//! and a caller searches those alone. A candidate is not a match: it is always verified.
//!
//! Trigrams are taken of ASCII-lowercased text, so one index serves case-sensitive and
//! case-insensitive queries alike (fewer distinct trigrams, and a case-insensitive literal
//! needs no expansion).
//!
//! A file's new version gets a fresh id and its old id is marked dead, so no other file's
//! postings are touched: ids only grow, and a posting list stays sorted by appending. Dead
//! ids are dropped from the postings once they are a quarter of all ids.
//!
//! `plan.rs` turns queries into trigrams, `index.rs` keeps the postings, `postings.rs`
//! encodes one list, `saved.rs` writes and reads the index on disk.

mod index;
mod plan;
mod postings;
mod saved;

pub use index::TrigramIndex;
pub use plan::Query;
pub use saved::Reader;

/// Three bytes, folded to ASCII lowercase, as `a << 16 | b << 8 | c`.
pub type Gram = u32;

/// `b` folded to ASCII lowercase, without a branch.
fn fold(b: u8) -> u32 {
    u32::from(b | (u8::from(b.is_ascii_uppercase()) << 5))
}

thread_local! {
    /// One bit per possible trigram, all clear between calls: [`grams`] dedups in one pass
    /// with it (sorting every window of a file cost several times more).
    static SEEN: std::cell::RefCell<Vec<u64>> = std::cell::RefCell::new(vec![0; 1 << 18]);
}

/// The distinct trigrams of `text`, folded, sorted.
pub fn grams(text: &[u8]) -> Vec<Gram> {
    let mut out: Vec<Gram> = Vec::new();
    SEEN.with(|seen| {
        let seen = &mut *seen.borrow_mut();
        let [a, b, rest @ ..] = text else { return };
        // Rolled along the text: one shift per byte (a window's three bytes each folded
        // and shifted cost twice as much on a big tree).
        let mut g = fold(*a) << 8 | fold(*b);
        for &c in rest {
            g = (g << 8 | fold(c)) & 0xff_ffff;
            let (word, bit) = ((g >> 6) as usize, 1u64 << (g & 63));
            if seen[word] & bit == 0 {
                seen[word] |= bit;
                out.push(g);
            }
        }
        for &g in &out {
            seen[(g >> 6) as usize] = 0;
        }
    });
    out.sort_unstable();
    out
}

/// Whether all three bytes of `g` are printable ASCII (tab and line ends included): the
/// trigrams kept of a binary file, whose others (compressed or encoded bytes) are mostly
/// unique to it and would multiply the lists. See [`Query::keeping`].
pub fn printable(g: Gram) -> bool {
    let ok = |b: u32| (0x20..0x7f).contains(&b) || b == 9 || b == 10 || b == 13;
    ok(g >> 16) && ok((g >> 8) & 0xff) && ok(g & 0xff)
}

#[cfg(test)]
mod tests {
    use super::*;
    use postings::Postings;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    /// Texts over a small alphabet, so that trigrams repeat and queries hit.
    fn text() -> impl Strategy<Value = String> {
        proptest::collection::vec(
            prop_oneof![
                Just("a"),
                Just("b"),
                Just("A"),
                Just("B"),
                Just("é"),
                Just("É"),
                Just("\n"),
                Just("ab"),
                Just("ba")
            ],
            0..40,
        )
        .prop_map(|v| v.concat())
    }

    /// Regular expressions over the same alphabet.
    fn pattern() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            Just("a".to_string()),
            Just("b".to_string()),
            Just("A".to_string()),
            Just("é".to_string()),
            Just("ab".to_string()),
            Just("aba".to_string()),
            Just("bab".to_string()),
            Just("[ab]".to_string()),
            Just("[aé]".to_string()),
            Just("[^a]".to_string()),
            Just(".".to_string()),
            Just("\\w".to_string()),
            Just("^".to_string()),
            Just("$".to_string()),
            Just("\\b".to_string()),
        ];
        leaf.prop_recursive(4, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 1..5).prop_map(|v| v.concat()),
                proptest::collection::vec(inner.clone(), 2..4)
                    .prop_map(|v| format!("(?:{})", v.join("|"))),
                (
                    inner.clone(),
                    prop_oneof![Just("*"), Just("+"), Just("?"), Just("{2}"), Just("{1,3}")]
                )
                    .prop_map(|(p, r)| format!("(?:{p}){r}")),
                inner.prop_map(|p| format!("({p})")),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Every file a regex matches is a candidate, case-sensitive or not, after any
        /// sequence of writes and removals.
        #[test]
        fn candidates_never_miss_a_match(
            writes in proptest::collection::vec(
                (0..6usize, proptest::option::weighted(0.8, text()), 0..10u8),
                1..30,
            ),
            pat in pattern(),
            ci in any::<bool>(),
        ) {
            let mut idx = TrigramIndex::new();
            let mut model: BTreeMap<String, String> = BTreeMap::new();
            for (f, w, then) in writes {
                match then {
                    0 | 1 => idx.freeze(),
                    // Saved and read back: its lists are read from the file from now on.
                    2 => idx = saved_and_loaded(&mut idx),
                    _ => {}
                }
                let path = format!("f{f}");
                match w {
                    Some(t) => {
                        idx.upsert(&path, t.as_bytes());
                        model.insert(path, t);
                    }
                    None => {
                        idx.remove(&path);
                        model.remove(&path);
                    }
                }
            }
            prop_assert_eq!(idx.len(), model.len());
            let re = regex::bytes::RegexBuilder::new(&pat).case_insensitive(ci).build().unwrap();
            let q = Query::regex(&pat, ci).unwrap();
            let cands = idx.candidates(&q);
            for (path, t) in &model {
                if re.is_match(t.as_bytes()) {
                    prop_assert!(
                        cands.as_ref().is_none_or(|c| c.contains(&path.as_str())),
                        "{} matches {:?} but {:?} left it out ({:?})", pat, t, q, cands
                    );
                }
            }
            // Removed files are never candidates.
            for c in cands.unwrap_or_default() {
                prop_assert!(model.contains_key(c));
            }
        }

        /// Files indexed by their printable trigrams alone (binary files) are never left
        /// out by a query kept to those trigrams.
        #[test]
        fn printable_trigrams_never_miss_a_match(
            texts in proptest::collection::vec(
                (text(), proptest::collection::vec(0..40usize, 0..3)), 1..8),
            pat in pattern(),
            ci in any::<bool>(),
        ) {
            let mut idx = TrigramIndex::new();
            let mut docs = Vec::new();
            for (i, (t, nuls)) in texts.into_iter().enumerate() {
                let mut bytes = t.into_bytes();
                for at in nuls {
                    bytes.insert(at.min(bytes.len()), 0);
                }
                let mut gs = grams(&bytes);
                gs.retain(|g| printable(*g));
                let path = format!("f{i}");
                idx.upsert_grams(&path, &gs);
                docs.push((path, bytes));
            }
            let re = regex::bytes::RegexBuilder::new(&pat)
                .case_insensitive(ci)
                .unicode(false)
                .build();
            // Byte-wise patterns only where the pattern is valid without Unicode mode.
            let Ok(re) = re else { return Ok(()) };
            let q = Query::regex(&pat, ci).unwrap().keeping(printable);
            let cands = idx.candidates(&q);
            for (path, bytes) in &docs {
                if re.is_match(bytes) {
                    prop_assert!(
                        cands.as_ref().is_none_or(|c| c.contains(&path.as_str())),
                        "{} matches {:?} but {:?} left it out", pat, bytes, q
                    );
                }
            }
        }

        /// A literal's candidates are exactly the files holding all its trigrams.
        #[test]
        fn a_literal_selects_the_files_with_all_its_trigrams(
            texts in proptest::collection::vec(text(), 1..12),
            lit in text(),
        ) {
            let mut idx = TrigramIndex::new();
            for (i, t) in texts.iter().enumerate() {
                idx.upsert(&format!("f{i:02}"), t.as_bytes());
            }
            let want = grams(lit.as_bytes());
            let cands = idx.candidates(&Query::literal(lit.as_bytes()));
            if lit.len() < 3 {
                prop_assert!(cands.is_none());
            } else {
                let expected: Vec<String> = texts
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| {
                        let have = grams(t.as_bytes());
                        want.iter().all(|g| have.binary_search(g).is_ok())
                    })
                    .map(|(i, _)| format!("f{i:02}"))
                    .collect();
                prop_assert_eq!(cands.unwrap(), expected);
            }
        }
    }

    /// `idx` saved to a file (behind a header, as its owner writes one) and loaded back.
    fn saved_and_loaded(idx: &mut TrigramIndex) -> TrigramIndex {
        use std::io::Write;
        let mut f = tempfile::tempfile().expect("temp file");
        let header = b"header";
        f.write_all(header).expect("write");
        let mut body = Vec::new();
        let at = idx.save(&mut body).expect("save");
        f.write_all(&body).expect("write");
        let data = [&header[..], &body].concat();
        let (loaded, used) =
            TrigramIndex::load(&data[header.len()..], f, header.len() as u64).expect("loads");
        assert_eq!(used, body.len());
        assert!(at <= body.len() as u64);
        loaded
    }

    #[test]
    fn a_saved_index_attached_to_its_file_answers_the_same() {
        use std::io::Write;
        let mut idx = TrigramIndex::new();
        idx.upsert("a.rs", b"fn spawn_blocking() {}");
        idx.upsert("b.rs", b"fn other() {}");
        let mut f = tempfile::tempfile().expect("temp file");
        let mut body = Vec::new();
        let at = idx.save(&mut body).expect("save");
        f.write_all(&body).expect("write");
        assert!(idx.attach(f, at));
        let q = Query::literal(b"spawn_b");
        assert_eq!(idx.candidates(&q), Some(vec!["a.rs"]));
        idx.upsert("c.rs", b"spawn_b");
        assert_eq!(idx.candidates(&q), Some(vec!["a.rs", "c.rs"]));
        idx.freeze();
        assert_eq!(idx.candidates(&q), Some(vec!["a.rs", "c.rs"]));
        // Truncated data is refused, not misread.
        for cut in [0, 3, body.len() / 2, body.len() - 1] {
            let f = tempfile::tempfile().expect("temp file");
            assert!(
                TrigramIndex::load(&body[..cut], f, 0).is_none(),
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn postings_read_back_what_was_pushed() {
        let ids = [0, 1, 127, 128, 300, 16_384, 70_000, 2_097_152, u32::MAX - 1];
        let mut p = Postings::default();
        for id in ids {
            p.push(id);
        }
        assert_eq!(p.ids().collect::<Vec<_>>(), ids);
        assert_eq!(p.len as usize, ids.len());
    }

    #[test]
    fn a_regex_with_a_required_literal_narrows_the_files() {
        let mut idx = TrigramIndex::new();
        idx.upsert("a.rs", b"fn spawn_blocking() {}");
        idx.upsert("b.rs", b"fn other() {}");
        idx.upsert("c.rs", b"let x = SPAWN;");
        let q = Query::regex(r"spawn_\w+\(", false).unwrap();
        assert_eq!(idx.candidates(&q), Some(vec!["a.rs"]));
        // Case-insensitive: the folded trigrams find both.
        let q = Query::regex("spawn", true).unwrap();
        assert_eq!(idx.candidates(&q), Some(vec!["a.rs", "c.rs"]));
        // An alternation: either side.
        let q = Query::regex("other|spawn_b", false).unwrap();
        assert_eq!(idx.candidates(&q), Some(vec!["a.rs", "b.rs"]));
        // Nothing required: every file.
        assert_eq!(idx.candidates(&Query::regex(r"\w+", false).unwrap()), None);
        // Replacing and removing.
        idx.upsert("b.rs", b"spawn_blocking again");
        idx.remove("a.rs");
        let q = Query::regex(r"spawn_\w+", false).unwrap();
        assert_eq!(idx.candidates(&q), Some(vec!["b.rs"]));
    }
}
