//! Promoted commands (seed 004): built-ins with a typed argument schema, reachable both as a
//! shell command and as a discrete tool, through one `execute`.
//!
//! The two paths converge:
//! - shell string → [`Promoted::parse_cli_args`] → deserialize → [`Promoted::validate`] →
//!   [`Promoted::execute`];
//! - typed tool call → deserialize → [`Promoted::validate`] → the same `execute`.
//!
//! On the shell path a bad argument becomes seed 004 §8's structured error on stderr with
//! exit status 1 ([`invalid_arguments`]); the typed path turns the same [`Issue`]s into an
//! `INVALID_ARGUMENTS` error. Adding a command is a declaration: implement [`Promoted`] and
//! list it in [`promoted!`] below.

pub mod awk;
pub mod cli;
pub mod find;
pub mod grep;
pub mod posix_re;
pub mod replace;
pub mod sed;
pub mod write;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

pub use crate::command::Risk;
use crate::command::{Builtin, Cx, Example, Io, Typed, TypedArgs};

/// One problem with a command's arguments (seed 004 §8).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Issue {
    /// The argument at fault, dotted (`flags.context`), or a JSON pointer on the typed path.
    pub path: String,
    /// `invalid_type`, `missing_field`, `unknown_flag`, `invalid_value`, ...
    pub code: &'static str,
    pub message: String,
}

impl Issue {
    /// An issue at `path`.
    pub fn new(path: impl Into<String>, code: &'static str, message: impl Into<String>) -> Issue {
        Issue {
            path: path.into(),
            code,
            message: message.into(),
        }
    }
}

/// One value or a list of them, where seed 004's schemas take either (`"include": "*.rs"`
/// or `"include": ["*.rs", "*.toml"]`). The single value is written as a string (a glob, a
/// path, `f`); it reads as a slice either way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OneOrMany<T> {
    /// A single value.
    One(T),
    /// Any number of values.
    Many(Vec<T>),
}

/// A string is read as `T` and an array as `Vec<T>`; anything else is an `invalid type`
/// (serde's untagged enums would only say that no variant matched, hiding what `T` said).
impl<'de, T: serde::Deserialize<'de>> serde::Deserialize<'de> for OneOrMany<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{self, IntoDeserializer, value::SeqAccessDeserializer};
        struct Either<T>(std::marker::PhantomData<T>);
        impl<'de, T: serde::Deserialize<'de>> de::Visitor<'de> for Either<T> {
            type Value = OneOrMany<T>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string or an array of strings")
            }

            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                T::deserialize(v.into_deserializer()).map(OneOrMany::One)
            }

            fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                <Vec<T> as serde::Deserialize>::deserialize(SeqAccessDeserializer::new(seq))
                    .map(OneOrMany::Many)
            }
        }
        d.deserialize_any(Either(std::marker::PhantomData))
    }
}

/// `T`, or an array of `T`: written by hand so that tool lists show just that, without
/// this type's docs.
impl<T: JsonSchema> JsonSchema for OneOrMany<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("OneOrMany_{}", T::schema_name()).into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let one = g.subschema_for::<T>();
        schemars::json_schema!({ "anyOf": [one.clone(), { "type": "array", "items": one }] })
    }
}

impl<T> Default for OneOrMany<T> {
    fn default() -> Self {
        OneOrMany::Many(Vec::new())
    }
}

impl<T> std::ops::Deref for OneOrMany<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        match self {
            OneOrMany::One(v) => std::slice::from_ref(v),
            OneOrMany::Many(v) => v,
        }
    }
}

impl<T> From<OneOrMany<T>> for Vec<T> {
    fn from(v: OneOrMany<T>) -> Vec<T> {
        match v {
            OneOrMany::One(v) => vec![v],
            OneOrMany::Many(v) => v,
        }
    }
}

/// The one line a walk prints for the hard-linked files it skipped (they may alias files
/// outside the workspace, so they are not read; one error each would bury a pnpm tree's
/// output under thousands of lines).
pub fn hardlink_note(command: &str, skipped: usize) -> String {
    let files = if skipped == 1 { "file" } else { "files" };
    format!(
        "{command}: skipped {skipped} hard-linked {files} (reading through a hard link is refused; see security.allowHardlinkReads)"
    )
}

/// Two names for one argument given together (`path` and `paths`): an issue naming both.
pub fn conflict(given: &str, other: &str) -> Issue {
    Issue::new(
        given,
        "conflicting_fields",
        format!("`{given}` and `{other}` name the same argument; give one of them"),
    )
}

/// What a promoted command is, as data: everything but how it reads and runs a call.
#[derive(Debug, Clone, Copy)]
pub struct PromotedSpec {
    /// The command and tool name (`grep`).
    pub name: &'static str,
    /// One sentence for tool lists.
    pub summary: &'static str,
    /// The shell usage line(s).
    pub usage: &'static str,
    /// Shell-form examples for descriptions and error replies.
    pub cli_examples: &'static [&'static str],
    /// A runnable shell-path example on the standard fixture; executed as a test.
    pub example: Example,
    /// A runnable typed-path example on the same fixture; executed as a test.
    pub typed_example: TypedExample,
    /// The most any call may do.
    pub max_risk: Risk,
}

/// A typed-path example: the arguments as JSON, and the exact stdout and exit status.
#[derive(Debug, Clone, Copy)]
pub struct TypedExample {
    pub args: &'static str,
    pub stdout: &'static str,
    pub status: i32,
}

/// A command with typed arguments, usable from the shell and as a tool.
pub trait Promoted: Send + Sync + 'static {
    /// The typed arguments; their JSON Schema is the tool's input schema.
    type Args: DeserializeOwned + JsonSchema + Send + 'static;
    /// Its name, help, examples and risk ceiling.
    const SPEC: PromotedSpec;
    /// Convert command-line words (without the name) to the JSON the schema describes.
    fn parse_cli_args(&self, args: &[String]) -> Result<Value, Vec<Issue>>;
    /// Checks beyond the schema (ranges, combinations).
    fn validate(&self, _args: &Self::Args) -> Result<(), Vec<Issue>> {
        Ok(())
    }
    /// What this call may do to files.
    fn risk(&self, args: &Self::Args) -> Risk;
    /// What a person asked to approve this call sees besides its arguments (a commit's
    /// files).
    fn preview(&self, _args: &Self::Args, _root: &ultra_workspace::Root) -> Option<String> {
        None
    }
    /// Run the validated call.
    fn execute(&self, args: Self::Args, io: &mut Io<'_>, cx: &Cx<'_>) -> i32;
}

/// Deserialize `value` into `T`, naming the failing field.
pub fn deserialize<T: DeserializeOwned>(value: Value) -> Result<T, Vec<Issue>> {
    serde_path_to_error::deserialize::<_, T>(value).map_err(|err| {
        let path = err.path().to_string();
        let message = err.inner().to_string();
        let code = if message.starts_with("missing field") {
            "missing_field"
        } else if message.starts_with("unknown field") {
            "unknown_field"
        } else if message.starts_with("invalid type") {
            "invalid_type"
        } else {
            "invalid_value"
        };
        let path = if path == "." { String::new() } else { path };
        vec![Issue::new(path, code, message)]
    })
}

/// Seed 004 §8's error body for the shell path.
pub fn invalid_arguments(
    name: &str,
    usage: &str,
    examples: &[&str],
    issues: &[Issue],
) -> serde_json::Value {
    serde_json::json!({
        "error": "invalid_arguments",
        "command": name,
        "issues": issues,
        "usage": usage,
        "examples": examples,
    })
}

/// The shell path of a promoted command.
pub struct Cli<P: Promoted + 'static>(pub &'static P);

impl<P: Promoted + 'static> Cli<P> {
    /// Parse, deserialize and validate command-line words.
    pub fn typed(&self, args: &[String]) -> Result<P::Args, Vec<Issue>> {
        let value = self.0.parse_cli_args(args)?;
        let typed: P::Args = deserialize(value)?;
        self.0.validate(&typed)?;
        Ok(typed)
    }

    /// What a call with these words may do; a call that does not parse does nothing.
    pub fn risk(&self, args: &[String]) -> Risk {
        self.typed(args)
            .map(|a| self.0.risk(&a))
            .unwrap_or(Risk::READ)
    }

    /// Run a call from the shell: `--help`, or the typed call, or seed 004 §8's error on
    /// stderr.
    pub fn run(&self, args: &[String], io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
        if args.len() == 1 && args[0] == "--help" {
            let mut text = format!("{}\nUsage: {}\n", P::SPEC.summary, P::SPEC.usage);
            if !P::SPEC.cli_examples.is_empty() {
                text.push_str("Examples:\n");
                for e in P::SPEC.cli_examples {
                    text.push_str(&format!("  {e}\n"));
                }
            }
            return i32::from(io.stdout.write_all(text.as_bytes()).is_err());
        }
        match self.typed(args) {
            Ok(typed) => self.0.execute(typed, io, cx),
            Err(issues) => {
                let body =
                    invalid_arguments(P::SPEC.name, P::SPEC.usage, P::SPEC.cli_examples, &issues);
                let text = serde_json::to_string_pretty(&body).unwrap_or_default();
                let _ = writeln!(io.stderr, "{text}");
                1
            }
        }
    }
}

/// The shell command of a promoted command; built once per command and kept for the
/// process, as the plain built-ins' statics are.
pub fn builtin<P: Promoted>(command: &'static P) -> &'static Builtin {
    let cli: &'static Cli<P> = Box::leak(Box::new(Cli(command)));
    Box::leak(Box::new(Builtin {
        name: P::SPEC.name,
        usage: P::SPEC.usage,
        example: P::SPEC.example,
        max_risk: P::SPEC.max_risk,
        risk: Some(Box::leak(Box::new(|args: &[String]| cli.risk(args)))),
        run: Box::leak(Box::new(|args: &[String], io: &mut Io<'_>, cx: &Cx<'_>| {
            cli.run(args, io, cx)
        })),
        typed: Some(Typed {
            read: Box::leak(Box::new(|args: &[String]| {
                let typed = cli.typed(args).ok()?;
                Some((command.risk(&typed), Box::new(typed) as TypedArgs))
            })),
            run: Box::leak(Box::new(
                |args: TypedArgs, io: &mut Io<'_>, cx: &Cx<'_>| match args.downcast::<P::Args>() {
                    Ok(typed) => command.execute(*typed, io, cx),
                    // Another command's arguments: a runtime bug, reported as a failure.
                    Err(_) => {
                        let _ =
                            writeln!(io.stderr, "{}: arguments of another command", P::SPEC.name);
                        1
                    }
                },
            )),
        }),
    }))
}

/// Collects the shell command of each promoted command it visits.
pub struct Builtins(pub Vec<&'static Builtin>);

impl Visitor for Builtins {
    fn visit<P: Promoted>(&mut self, command: &'static P) {
        self.0.push(builtin(command));
    }
}

/// The shell commands of this crate's promoted commands, sorted by name.
pub fn builtins() -> &'static [&'static Builtin] {
    static BUILTINS: std::sync::OnceLock<Vec<&'static Builtin>> = std::sync::OnceLock::new();
    BUILTINS.get_or_init(|| {
        let mut b = Builtins(Vec::new());
        visit(&mut b);
        b.0
    })
}

/// Receives each promoted command with its concrete type (to register typed tools).
pub trait Visitor {
    /// Called once per promoted command.
    fn visit<P: Promoted>(&mut self, command: &'static P);
}

/// The one list of promoted commands: their shell commands ([`builtins`]) and typed visits
/// ([`visit`]) come from it.
macro_rules! promoted {
    ($($module:ident :: $ty:ident),* $(,)?) => {
        /// Visit every promoted command, sorted by name.
        pub fn visit(v: &mut impl Visitor) {
            $(v.visit(&$module::$ty);)*
        }
    };
}

promoted!(
    awk::Awk,
    find::Find,
    grep::Grep,
    replace::Replace,
    sed::Sed,
    write::Write
);
