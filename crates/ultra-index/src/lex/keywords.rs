//! Each language's reserved words, for the lexical scan (`lex/`): a keyword is not an
//! identifier occurrence (unless it follows a `.`, where it names a member), and some are
//! decision points. The lists follow the grammars: what tree-sitter parses as a keyword
//! or a built-in type node rather than an identifier.

use crate::lex::Kw;

/// Rust, with its primitive types and literals.
pub(crate) fn rust(w: &[u8]) -> Kw {
    match w {
        b"if" | b"for" | b"while" | b"loop" => Kw::Decision,
        b"as" | b"async" | b"await" | b"break" | b"const" | b"continue" | b"crate" | b"dyn"
        | b"else" | b"enum" | b"extern" | b"false" | b"fn" | b"impl" | b"in" | b"let"
        | b"match" | b"mod" | b"move" | b"mut" | b"pub" | b"ref" | b"return" | b"self"
        | b"static" | b"struct" | b"super" | b"trait" | b"true" | b"type" | b"unsafe" | b"use"
        | b"where" | b"yield" | b"bool" | b"char" | b"str" | b"u8" | b"u16" | b"u32" | b"u64"
        | b"u128" | b"usize" | b"i8" | b"i16" | b"i32" | b"i64" | b"i128" | b"isize" | b"f32"
        | b"f64" | b"_" => Kw::Keyword,
        _ => Kw::Ident,
    }
}

/// Python 3 (`match`, `case`, `type` and `_` are soft: names unless they start a
/// statement, which the scan decides).
pub(crate) fn python(w: &[u8]) -> Kw {
    match w {
        b"if" | b"elif" | b"for" | b"while" | b"except" | b"and" | b"or" => Kw::Decision,
        b"False" | b"None" | b"True" | b"as" | b"assert" | b"async" | b"await" | b"break"
        | b"class" | b"continue" | b"def" | b"del" | b"else" | b"finally" | b"from" | b"global"
        | b"import" | b"in" | b"is" | b"lambda" | b"nonlocal" | b"not" | b"pass" | b"raise"
        | b"return" | b"try" | b"with" | b"yield" => Kw::Keyword,
        _ => Kw::Ident,
    }
}

/// JavaScript and TypeScript, with TypeScript's predefined types and modifiers.
pub(crate) fn js(w: &[u8]) -> Kw {
    match w {
        b"if" | b"for" | b"while" | b"case" | b"catch" => Kw::Decision,
        b"break" | b"class" | b"const" | b"continue" | b"debugger" | b"default" | b"delete"
        | b"do" | b"else" | b"export" | b"extends" | b"finally" | b"function" | b"import"
        | b"in" | b"instanceof" | b"let" | b"new" | b"return" | b"super" | b"switch" | b"this"
        | b"throw" | b"try" | b"typeof" | b"var" | b"void" | b"with" | b"yield" | b"async"
        | b"await" | b"static" | b"get" | b"set" | b"of" | b"from" | b"as" | b"true" | b"false"
        | b"null" | b"undefined" | b"type" | b"interface" | b"enum" | b"implements"
        | b"declare" | b"namespace" | b"abstract" | b"public" | b"private" | b"protected"
        | b"readonly" | b"keyof" | b"infer" | b"is" | b"asserts" | b"satisfies" | b"override"
        | b"accessor" | b"unique" | b"any" | b"number" | b"string" | b"boolean" | b"never"
        | b"unknown" | b"object" | b"symbol" | b"bigint" => Kw::Keyword,
        _ => Kw::Ident,
    }
}

/// Go, with its literals.
pub(crate) fn go(w: &[u8]) -> Kw {
    match w {
        b"if" | b"for" | b"case" => Kw::Decision,
        b"break" | b"chan" | b"const" | b"continue" | b"default" | b"defer" | b"else"
        | b"fallthrough" | b"func" | b"go" | b"goto" | b"import" | b"interface" | b"map"
        | b"package" | b"range" | b"return" | b"select" | b"struct" | b"switch" | b"type"
        | b"var" | b"true" | b"false" | b"nil" | b"iota" => Kw::Keyword,
        _ => Kw::Ident,
    }
}

/// Java, with its primitive types and literals.
pub(crate) fn java(w: &[u8]) -> Kw {
    match w {
        b"if" | b"for" | b"while" | b"case" | b"catch" => Kw::Decision,
        b"abstract" | b"assert" | b"boolean" | b"break" | b"byte" | b"char" | b"class"
        | b"const" | b"continue" | b"default" | b"do" | b"double" | b"else" | b"enum"
        | b"extends" | b"final" | b"finally" | b"float" | b"goto" | b"implements" | b"import"
        | b"instanceof" | b"int" | b"interface" | b"long" | b"native" | b"new" | b"package"
        | b"private" | b"protected" | b"public" | b"return" | b"short" | b"static"
        | b"strictfp" | b"super" | b"switch" | b"synchronized" | b"this" | b"throw" | b"throws"
        | b"transient" | b"try" | b"void" | b"volatile" | b"true" | b"false" | b"null" | b"var"
        | b"record" | b"yield" | b"sealed" | b"permits" => Kw::Keyword,
        _ => Kw::Ident,
    }
}

/// C and C++, with their primitive types and literals.
pub(crate) fn c(w: &[u8]) -> Kw {
    match w {
        b"if" | b"for" | b"while" | b"case" | b"catch" => Kw::Decision,
        b"auto" | b"break" | b"char" | b"const" | b"continue" | b"default" | b"do" | b"double"
        | b"else" | b"enum" | b"extern" | b"float" | b"goto" | b"inline" | b"int" | b"long"
        | b"register" | b"restrict" | b"return" | b"short" | b"signed" | b"sizeof" | b"static"
        | b"struct" | b"switch" | b"typedef" | b"union" | b"unsigned" | b"void" | b"volatile"
        | b"_Bool" | b"bool" | b"true" | b"false" | b"class" | b"namespace" | b"template"
        | b"typename" | b"public" | b"private" | b"protected" | b"virtual" | b"override"
        | b"final" | b"new" | b"delete" | b"this" | b"operator" | b"using" | b"try" | b"throw"
        | b"nullptr" | b"constexpr" | b"noexcept" | b"explicit" | b"friend" | b"mutable"
        | b"decltype" | b"static_cast" | b"dynamic_cast" | b"reinterpret_cast" | b"const_cast"
        | b"size_t" | b"int8_t" | b"int16_t" | b"int32_t" | b"int64_t" | b"uint8_t"
        | b"uint16_t" | b"uint32_t" | b"uint64_t" | b"ssize_t" | b"intptr_t" | b"uintptr_t"
        | b"ptrdiff_t" | b"NULL" => Kw::Keyword,
        _ => Kw::Ident,
    }
}
