//! Strings: where each language's literals start and end, and the code inside
//! interpolations (Python f-strings, JavaScript template literals).

use super::{INTERP, Mode, Quote, Scanner, Sink, ident_byte, utf8_len};

impl<'s> Scanner<'s> {
    pub(super) fn string(&mut self, q: Quote) {
        while self.at < self.src.len() {
            let b = self.src[self.at];
            match b {
                b'\n' => {
                    if !q.multiline {
                        // A backslash before the newline continues the string.
                        self.st.cont = !q.raw && self.at > 0 && self.src[self.at - 1] == b'\\';
                    }
                    return;
                }
                b'\\' if !q.raw || self.syn.python => {
                    // Python's raw strings still cannot end at an escaped quote.
                    if self.peek(1) == b'\n' {
                        self.at += 1;
                    } else {
                        self.at += 2;
                    }
                }
                _ if b == q.q => {
                    if q.triple {
                        if self.peek(1) == q.q && self.peek(2) == q.q {
                            self.at += 3;
                            self.end_string();
                            return;
                        }
                        self.at += 1;
                    } else if self.syn.rust && q.raw {
                        let hashes = self.st.tag as usize;
                        if self.src[self.at + 1..]
                            .iter()
                            .take(hashes)
                            .filter(|&&h| h == b'#')
                            .count()
                            == hashes
                        {
                            self.at += 1 + hashes;
                            self.end_string();
                            return;
                        }
                        self.at += 1;
                    } else {
                        self.at += 1;
                        self.end_string();
                        return;
                    }
                }
                b'{' if q.interp && self.syn.python => {
                    if self.peek(1) == b'{' {
                        self.at += 2;
                    } else {
                        self.at += 1;
                        self.open_interp(q);
                        return;
                    }
                }
                b'$' if q.interp && self.syn.js && self.peek(1) == b'{' => {
                    self.at += 2;
                    self.open_interp(q);
                    return;
                }
                _ => self.at += 1,
            }
        }
    }

    pub(super) fn end_string(&mut self) {
        self.st.mode = Mode::Code;
        self.st.tag = 0;
        self.st.regex_ok = false;
        self.st.after_dot = false;
    }

    /// `{` in an f-string or `${` in a template: code until the matching `}`.
    pub(super) fn open_interp(&mut self, q: Quote) {
        self.st.mode = Mode::Code;
        self.st.regex_ok = true;
        self.st.after_dot = false;
        let n = self.st.n_interp as usize;
        let open = if self.syn.python {
            self.st.parens
        } else {
            self.st.depth
        };
        if n < INTERP {
            self.st.interp[n] = (open, q);
        }
        self.st.n_interp = self.st.n_interp.saturating_add(1);
        if !self.syn.python {
            self.st.depth = self.st.depth.saturating_add(1);
        } else {
            self.st.parens = self.st.parens.saturating_add(1);
        }
    }

    pub(super) fn cpp_raw(&mut self) {
        while self.at < self.src.len() {
            match self.src[self.at] {
                b'\n' => return,
                b')' if self.src[self.at + 1..].starts_with(&self.cpp_delim)
                    && self.src.get(self.at + 1 + self.cpp_delim.len()) == Some(&b'"') =>
                {
                    self.at += 2 + self.cpp_delim.len();
                    self.end_string();
                    return;
                }
                _ => self.at += 1,
            }
        }
    }

    /// `w` followed by a quote (or Rust's `r#`): a string prefix? Then scan the string.
    pub(super) fn string_prefix(
        &mut self,
        w: &[u8],
        next: u8,
        end: usize,
        sink: &mut impl Sink<'s>,
    ) -> bool {
        let lower: Vec<u8> = w.iter().map(u8::to_ascii_lowercase).collect();
        let lower = lower.as_slice();
        if self.syn.rust {
            let raw = matches!(w, b"r" | b"br" | b"cr");
            if next == b'#' {
                if !raw {
                    return false;
                }
                let hashes = self.src[end..].iter().take_while(|&&c| c == b'#').count();
                if self.src.get(end + hashes) != Some(&b'"') {
                    return false;
                }
                self.at = end + hashes + 1;
                self.st.tag = hashes as u16;
                self.open(Quote {
                    q: b'"',
                    raw: true,
                    multiline: true,
                    ..Quote::default()
                });
                return true;
            }
            if !(raw || matches!(w, b"b" | b"c")) {
                return false;
            }
            self.at = end;
            if next == b'\'' {
                self.quote(b'\'', sink);
            } else {
                self.st.tag = 0;
                self.at += 1;
                self.open(Quote {
                    q: b'"',
                    raw,
                    multiline: true,
                    ..Quote::default()
                });
            }
            return true;
        }
        if self.syn.python {
            let ok = lower.len() <= 2
                && lower.iter().all(|c| b"rbuf".contains(c))
                && (lower.len() == 1 || lower[0] != lower[1]);
            if !ok {
                return false;
            }
            self.at = end;
            let raw = lower.contains(&b'r');
            let interp = lower.contains(&b'f');
            self.python_quote(next, raw, interp);
            return true;
        }
        if self.syn.c {
            let raw = matches!(w, b"R" | b"u8R" | b"uR" | b"UR" | b"LR");
            if raw && next == b'"' {
                let open = self.src[end + 1..].iter().take(17).position(|&c| c == b'(');
                if let Some(p) = open {
                    self.cpp_delim = self.src[end + 1..end + 1 + p].to_vec();
                    self.st.tag = self
                        .cpp_delim
                        .iter()
                        .fold(7u16, |h, &c| h.wrapping_mul(31).wrapping_add(u16::from(c)));
                    self.at = end + 2 + p;
                    self.st.mode = Mode::CppRaw;
                    self.st.regex_ok = false;
                    return true;
                }
            }
            if matches!(w, b"L" | b"u" | b"U" | b"u8") {
                self.at = end;
                self.quote(next, sink);
                return true;
            }
        }
        false
    }

    /// A quote in code at `at`.
    pub(super) fn quote(&mut self, q: u8, sink: &mut impl Sink<'s>) {
        if self.syn.python {
            self.python_quote(q, false, false);
            return;
        }
        if self.syn.rust && q == b'\'' {
            self.rust_tick(sink);
            return;
        }
        if self.syn.java && q == b'"' && self.peek(1) == b'"' && self.peek(2) == b'"' {
            self.at += 3;
            self.open(Quote {
                q,
                triple: true,
                multiline: true,
                ..Quote::default()
            });
            return;
        }
        self.at += 1;
        let quote = match q {
            b'`' if self.syn.js => Quote {
                q,
                interp: true,
                multiline: true,
                ..Quote::default()
            },
            b'`' if self.syn.go => Quote {
                q,
                raw: true,
                multiline: true,
                ..Quote::default()
            },
            b'`' => {
                self.st.regex_ok = true;
                return;
            }
            _ => Quote {
                q,
                multiline: self.syn.rust,
                ..Quote::default()
            },
        };
        self.open(quote);
    }

    pub(super) fn python_quote(&mut self, q: u8, raw: bool, interp: bool) {
        let triple = self.peek(1) == q && self.peek(2) == q;
        self.at += if triple { 3 } else { 1 };
        self.open(Quote {
            q,
            triple,
            raw,
            interp,
            multiline: triple,
        });
    }

    pub(super) fn open(&mut self, q: Quote) {
        self.st.mode = Mode::Str(q);
        self.string(q);
    }

    /// Rust's `'`: a char literal, or a lifetime (whose name is an identifier).
    pub(super) fn rust_tick(&mut self, sink: &mut impl Sink<'s>) {
        let rest = &self.src[self.at + 1..];
        let char_len = match rest {
            [b'\\', ..] => rest
                .iter()
                .skip(2)
                .take(10)
                .position(|&c| c == b'\'')
                .map(|p| p + 3),
            [c, ..] => {
                let n = utf8_len(*c);
                (rest.get(n) == Some(&b'\'')).then_some(n + 1)
            }
            [] => None,
        };
        if let Some(n) = char_len {
            self.at += 1 + n;
            self.st.regex_ok = false;
            return;
        }
        // A lifetime or a label: `'a`.
        self.at += 1;
        if self.at < self.src.len() && ident_byte(self.src[self.at]) {
            self.word(sink);
        }
    }
}
