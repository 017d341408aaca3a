//! The files under a directory that `index_file` parses, read one at a time: what the
//! measuring examples share (each includes this file as a module).

use std::path::Path;

use ultra_index::Lang;

/// Each parsed file under `root` as (relative path, content, language), in walk order;
/// with `only` non-empty, only files of those languages (`Lang::as_str`). Files that
/// cannot be read or are too big to parse are left out.
pub fn sources(root: &Path, only: &[String]) -> impl Iterator<Item = (String, Vec<u8>, Lang)> {
    let exclude = ultra_index::build::Exclude::none();
    let only = only.to_vec();
    ultra_index::build::walk(root, &exclude, &|_| true)
        .into_iter()
        .filter_map(move |found| {
            let lang = Lang::of_path(&found.path)?;
            if !only.is_empty() && !only.iter().any(|l| l == lang.as_str()) {
                return None;
            }
            let bytes = std::fs::read(&found.abs).ok()?;
            (bytes.len() <= ultra_index::passes::MAX_PARSE_BYTES)
                .then_some((found.path, bytes, lang))
        })
}
