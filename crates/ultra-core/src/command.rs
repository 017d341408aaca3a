//! The `Command` trait: one declaration per command, from which schemas, help, tool lists
//! and tests are derived.

use std::any::Any;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;
use ultra_protocol::command::Annotations;
pub use ultra_protocol::command::Touches;
use ultra_protocol::{AgentFeedback, CommandError, ErrorCode, Source, SourceKind, Warning};

use crate::confirm::Confirmations;
use crate::events::EventBus;
use crate::registry::Registry;
use crate::validator::{ValidationContext, Validators, WriteChecker};

/// The static description of a command. Everything but the handler and the argument and
/// result types lives here.
#[derive(Debug, Clone, Copy)]
pub struct CommandSpec {
    /// Canonical id, e.g. `ultra.openFile`.
    pub id: &'static str,
    /// Title for the palette.
    pub title: &'static str,
    /// Category for grouping (`File`, `Edit`, `Query`, ...).
    pub category: &'static str,
    /// What it does, for people and models. The first sentence is the summary.
    pub description: &'static str,
    /// Runnable examples; each one is executed as a test.
    pub examples: &'static [Example],
    /// Default keybinding, e.g. `ctrl+s`.
    pub keybinding: Option<&'static str>,
    /// More default keys, each with the arguments it passes (`shift+right` runs
    /// `ultra.cursorRight` with `{"select": true}`): `(key, args JSON)`.
    pub more_keys: &'static [(&'static str, &'static str)],
    /// When-clause for availability, e.g. `editorFocus`.
    pub when: Option<&'static str>,
    /// Whether agents see it in tool lists.
    pub ai_exposed: bool,
    /// Risk annotations; policy decides allow / ask / deny from them.
    pub annotations: Annotations,
    /// Name in LLM tool lists (e.g. `get_lines`).
    pub tool_name: Option<&'static str>,
    /// Other names that reach the same command (e.g. seed 003's `editor.save`).
    pub aliases: &'static [&'static str],
    /// If set, only these sources may run it (e.g. confirmations are human-only).
    pub sources: Option<&'static [SourceKind]>,
    /// May run for a long time (scripts, big I/O): the executor lets its worker thread's
    /// other tasks move elsewhere first, so it cannot stall other connections.
    pub long: bool,
    /// Its handler only names another command to run (`{command, args}`, seed 003's
    /// `command.execute`): the executor runs that one, through every check, and answers
    /// `{result}` with its data.
    pub forwards: bool,
    /// A person confirms every call from an agent (source `ai`) unless policy says otherwise
    /// or auto-apply is on (seed 001's edit_lines, create_file, delete_file, git_commit).
    pub confirm: bool,
    /// A read an editor makes for every frame (`ultra.getViewport`): when it succeeds it
    /// is neither written to the audit log nor announced as `command.executed`, which
    /// would otherwise be mostly these. Failures are recorded as usual.
    pub quiet: bool,
    /// What the command reaches (files, processes, terminals, network); `None` until
    /// declared, which registration refuses.
    pub touches: Option<Touches>,
    /// Its result as text for a model (see [`crate::render`]); `None`: the JSON.
    pub render: Option<crate::render::Render>,
}

impl CommandSpec {
    /// A spec with the required fields; the rest default to "none" and `ai_exposed: true`.
    pub const fn new(
        id: &'static str,
        title: &'static str,
        category: &'static str,
        description: &'static str,
    ) -> Self {
        CommandSpec {
            id,
            title,
            category,
            description,
            examples: &[],
            keybinding: None,
            more_keys: &[],
            when: None,
            ai_exposed: true,
            annotations: Annotations {
                read_only: false,
                destructive: false,
                idempotent: false,
                open_world: false,
            },
            tool_name: None,
            aliases: &[],
            sources: None,
            long: false,
            forwards: false,
            confirm: false,
            quiet: false,
            touches: None,
            render: None,
        }
    }

    /// Render results as text for models with `render` (see [`crate::render`]).
    pub const fn render(mut self, render: crate::render::Render) -> Self {
        self.render = Some(render);
        self
    }

    /// Declare what the command reaches (see [`Touches`]).
    pub const fn touches(mut self, touches: Touches) -> Self {
        self.touches = Some(touches);
        self
    }

    /// Mark it as a per-frame read (see [`CommandSpec::quiet`]); it must be read-only.
    pub const fn quiet(mut self) -> Self {
        self.quiet = true;
        self
    }

    /// Mark it as always confirmed for agents (see [`CommandSpec::confirm`]).
    pub const fn confirms(mut self) -> Self {
        self.confirm = true;
        self
    }

    /// Mark as possibly long-running.
    pub const fn long(mut self) -> Self {
        self.long = true;
        self
    }

    /// Mark it as forwarding (see [`CommandSpec::forwards`]).
    pub const fn forwards(mut self) -> Self {
        self.forwards = true;
        self
    }

    /// Set the examples.
    pub const fn examples(mut self, examples: &'static [Example]) -> Self {
        self.examples = examples;
        self
    }

    /// Set the default keybinding.
    pub const fn keybinding(mut self, key: &'static str) -> Self {
        self.keybinding = Some(key);
        self
    }

    /// Add default keys that pass arguments (see [`CommandSpec::more_keys`]).
    pub const fn more_keys(mut self, keys: &'static [(&'static str, &'static str)]) -> Self {
        self.more_keys = keys;
        self
    }

    /// Set the when-clause.
    pub const fn when(mut self, when: &'static str) -> Self {
        self.when = Some(when);
        self
    }

    /// Hide from agents' tool lists.
    pub const fn not_ai_exposed(mut self) -> Self {
        self.ai_exposed = false;
        self
    }

    /// Mark read-only (and so idempotent).
    pub const fn read_only(mut self) -> Self {
        self.annotations.read_only = true;
        self.annotations.idempotent = true;
        self
    }

    /// Mark destructive.
    pub const fn destructive(mut self) -> Self {
        self.annotations.destructive = true;
        self
    }

    /// Mark idempotent.
    pub const fn idempotent(mut self) -> Self {
        self.annotations.idempotent = true;
        self
    }

    /// Mark open-world.
    pub const fn open_world(mut self) -> Self {
        self.annotations.open_world = true;
        self
    }

    /// Set the LLM tool name.
    pub const fn tool_name(mut self, name: &'static str) -> Self {
        self.tool_name = Some(name);
        self
    }

    /// Set aliases.
    pub const fn aliases(mut self, aliases: &'static [&'static str]) -> Self {
        self.aliases = aliases;
        self
    }

    /// Restrict to the given sources.
    pub const fn only_sources(mut self, sources: &'static [SourceKind]) -> Self {
        self.sources = Some(sources);
        self
    }
}

/// A runnable example. The example runner builds a fresh workspace holding `files`, runs
/// `setup` commands, runs the command with `args`, and checks that the result data contains
/// `expect` (a JSON subset match) when given.
#[derive(Debug, Clone, Copy)]
pub struct Example {
    pub description: &'static str,
    /// Arguments as a JSON object literal.
    pub args: &'static str,
    /// Files present before the example runs: `(path, content)`.
    pub files: &'static [(&'static str, &'static str)],
    /// Commands run first: `(id, args JSON)`.
    pub setup: &'static [(&'static str, &'static str)],
    /// A JSON value the result data must contain (objects match by subset).
    pub expect: Option<&'static str>,
    /// The error code the example must fail with, for commands whose point is refusing.
    pub error: Option<&'static str>,
    /// The source kind the example runs as (default `human`).
    pub source: Option<SourceKind>,
}

impl Example {
    /// The empty example, for `..Example::EMPTY` in literals.
    pub const EMPTY: Example = Example {
        description: "",
        args: "{}",
        files: &[],
        setup: &[],
        expect: None,
        error: None,
        source: None,
    };
}

/// What a file operation touches, for `validateFileOperation` hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FileOperationKind {
    Create,
    Delete,
    Rename,
    Move,
}

/// A file operation a command is about to perform.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileOperation {
    pub kind: FileOperationKind,
    pub source: Option<String>,
    pub target: Option<String>,
}

impl FileOperation {
    /// Creating (or writing) `path`.
    pub fn create(path: &str) -> Option<FileOperation> {
        Some(FileOperation {
            kind: FileOperationKind::Create,
            source: Some(path.to_string()),
            target: None,
        })
    }

    /// Deleting `path`.
    pub fn delete(path: &str) -> Option<FileOperation> {
        Some(FileOperation {
            kind: FileOperationKind::Delete,
            source: Some(path.to_string()),
            target: None,
        })
    }

    /// Renaming (or moving, or copying onto) `from` to `to`.
    pub fn rename(kind: FileOperationKind, from: &str, to: &str) -> Option<FileOperation> {
        Some(FileOperation {
            kind,
            source: Some(from.to_string()),
            target: Some(to.to_string()),
        })
    }
}

/// A command: declared once, reachable from every surface.
pub trait Command<S>: Send + Sync + 'static {
    /// Typed arguments. The JSON Schema is generated from this type.
    type Args: DeserializeOwned + JsonSchema + Send + 'static;
    /// Typed result data.
    type Output: Serialize + JsonSchema;

    /// The description: id, title, schema-less facts, examples, risk. Most commands declare
    /// it here; a command whose description depends on its value (one type serving several
    /// ids) overrides [`Command::spec`] instead. Registration refuses an empty id.
    const SPEC: CommandSpec = CommandSpec::new("", "", "", "");

    /// The description this command is registered with (by default [`Command::SPEC`]).
    fn spec(&self) -> &'static CommandSpec {
        &Self::SPEC
    }

    /// Do the work. Runs after policy and validators allowed it.
    fn run(&self, cx: &mut Cx<'_, S>, args: Self::Args) -> Result<Self::Output, CommandError>;

    /// The file operation this call performs, if any, for validator hooks.
    fn file_operation(&self, _args: &Self::Args) -> Option<FileOperation> {
        None
    }

    /// The risk of this particular call, for policy. Defaults to the spec's annotations; a
    /// command whose arguments can make it riskier (e.g. `overwrite: true`) says so here.
    fn annotations(&self, _args: &Self::Args) -> Annotations {
        self.spec().annotations
    }

    /// [`Command::annotations`] with the services at hand, for risk that depends on
    /// configuration (`run_command`'s allow list).
    fn annotations_in(&self, _services: &S, args: &Self::Args) -> Annotations {
        self.annotations(args)
    }

    /// What a person asked to approve this call sees besides its arguments: the diff an
    /// edit would make, the content a delete would lose.
    fn preview(&self, _services: &S, _args: &Self::Args) -> Option<String> {
        None
    }

    /// The programs this call would start, every stage of every command line it runs
    /// (`run_command "a && b | c"` names a, b and c), for `security.restrictedCommands`.
    /// Commands that start none name none.
    fn programs(&self, _services: &S, _args: &Self::Args) -> Vec<String> {
        Vec::new()
    }

    /// A refusal that needs no person, checked before policy: a call this returns an error
    /// for is never put to anyone (a denied command line, a path the caller may not write).
    fn precheck(
        &self,
        _services: &S,
        _source: &Source,
        _args: &Self::Args,
    ) -> Result<(), CommandError> {
        Ok(())
    }
}

/// Everything a handler can reach while it runs.
pub struct Cx<'a, S> {
    /// The services (workspace, ...), owned by the layer that wires Ultra together.
    pub services: &'a S,
    /// Who called.
    pub source: &'a Source,
    /// The registry, for introspection commands.
    pub registry: &'a Registry<S>,
    /// The event bus.
    pub events: &'a EventBus,
    /// Pending confirmations.
    pub confirmations: &'a Confirmations,
    pub(crate) validators: &'a Validators,
    /// Present when validators will see this call (non-human source, validators loaded).
    pub(crate) validation_context: Option<ValidationContext>,
    pub(crate) warnings: Vec<Warning>,
    pub(crate) feedback: Option<AgentFeedback>,
    /// The id of the command being run.
    pub command_id: &'static str,
    /// Where the audit log is written, if anywhere.
    pub audit_path: Option<&'a std::path::Path>,
}

impl<S> Cx<'_, S> {
    /// Ids of the loaded validators.
    pub fn validator_ids(&self) -> Vec<String> {
        self.validators.ids()
    }

    /// Context from every validator for files an agent is about to work on.
    pub fn validator_context(
        &self,
        paths: &[String],
    ) -> Result<crate::validator::ProvidedContext, CommandError> {
        self.validators.context_for_files(paths)
    }

    /// A checker for writes made away from the executor's hooks (the shell's), when
    /// validators see this call (a non-human source with validators loaded).
    pub fn write_checker(&self) -> Option<WriteChecker> {
        let base = self.validation_context.clone()?;
        Some(WriteChecker {
            validators: self.validators.clone(),
            base,
            command_id: self.command_id,
            gathered: Default::default(),
        })
    }

    /// Move what a [`WriteChecker`] gathered (warnings, a block's feedback) into this
    /// call's result.
    pub fn absorb(&mut self, checker: &WriteChecker) {
        let mut g = checker.gathered.lock().unwrap_or_else(|p| p.into_inner());
        self.warnings.append(&mut g.warnings);
        if let Some(f) = g.feedback.take() {
            self.feedback = Some(f);
        }
    }

    /// Add a warning to the result.
    pub fn warn(&mut self, code: impl Into<String>, message: impl Into<String>) {
        self.warnings.push(Warning {
            code: code.into(),
            message: message.into(),
            location: None,
        });
    }

    /// Ask the validators whether `content` may be written to `path`, whose text is now
    /// `old` (`None` for a new file). Call before applying any change. Human sources are not
    /// validated. Fails closed: a validator that errors blocks the write.
    ///
    /// Handlers call this while holding the workspace lock, so validators see `old` for
    /// `path` rather than reading through the (locked) workspace.
    pub fn check_content(
        &mut self,
        path: &str,
        content: &dyn Fn() -> String,
        old: &dyn Fn() -> Option<String>,
    ) -> Result<(), CommandError> {
        let Some(base) = &self.validation_context else {
            return Ok(());
        };
        if !self.validators.has_content_hooks() {
            return Ok(());
        }
        let text = content();
        let old = old();
        let mut vcx = base.clone();
        let fallback = vcx.read_file.clone();
        let own = path.to_string();
        vcx.read_file =
            std::sync::Arc::new(move |p: &str| if p == own { old.clone() } else { fallback(p) });
        match self
            .validators
            .validate_content(self.command_id, path, &text, &vcx)
        {
            Ok(agg) if agg.proceed => {
                self.warnings.extend(agg.warnings.iter().cloned());
                Ok(())
            }
            Ok(agg) => {
                // The executor counts these when the call fails and fills in the prior count.
                self.feedback = Some(agg.feedback(0));
                Err(CommandError::new(ErrorCode::ContentValidationFailed, "Content blocked by validator")
                    .with_details(serde_json::json!({ "path": path }))
                    .with_suggestion("change the content so that it satisfies the violated rules, then retry; do not resend it unchanged"))
            }
            Err(e) => Err(e),
        }
    }
}

/// Object-safe form of [`Command`] used by the registry and executor.
pub(crate) trait DynCommand<S>: Send + Sync {
    fn spec(&self) -> &'static CommandSpec;
    /// The operation this name reaches, when it is a [`crate::dialect::Dialect`].
    fn target(&self) -> Option<&'static str> {
        None
    }
    fn args_schema(&self) -> Value;
    fn result_schema(&self) -> Value;
    fn parse(&self, args: Value) -> Result<Box<dyn Any + Send>, Vec<crate::schema::Issue>>;
    fn file_operation(&self, args: &(dyn Any + Send)) -> Option<FileOperation>;
    fn annotations(&self, services: &S, args: &(dyn Any + Send)) -> Annotations;
    fn preview(&self, services: &S, args: &(dyn Any + Send)) -> Option<String>;
    fn programs(&self, services: &S, args: &(dyn Any + Send)) -> Vec<String>;
    fn precheck(
        &self,
        services: &S,
        source: &Source,
        args: &(dyn Any + Send),
    ) -> Result<(), CommandError>;
    fn run(&self, cx: &mut Cx<'_, S>, args: Box<dyn Any + Send>) -> Result<Value, CommandError>;
    /// [`DynCommand::run`] with the data as JSON text, for a transport that only sends it
    /// on: a typed command serialises its output once, with no `Value` built between.
    fn run_text(
        &self,
        cx: &mut Cx<'_, S>,
        args: Box<dyn Any + Send>,
    ) -> Result<Box<RawValue>, CommandError> {
        let data = self.run(cx, args)?;
        serde_json::value::to_raw_value(&data).map_err(unserialisable)
    }
}

fn unserialisable(e: serde_json::Error) -> CommandError {
    CommandError::new(
        ErrorCode::InternalError,
        format!("result not serialisable: {e}"),
    )
}

/// A [`Command`] seen through [`DynCommand`] (a wrapper, so that other kinds of entry,
/// such as dialects, can implement it too).
pub(crate) struct Typed<C>(pub(crate) C);

impl<S, C: Command<S>> DynCommand<S> for Typed<C> {
    fn spec(&self) -> &'static CommandSpec {
        Command::spec(&self.0)
    }

    fn args_schema(&self) -> Value {
        crate::schema::schema_for::<C::Args>()
    }

    fn result_schema(&self) -> Value {
        crate::schema::output_schema_for::<C::Output>()
    }

    fn parse(&self, args: Value) -> Result<Box<dyn Any + Send>, Vec<crate::schema::Issue>> {
        crate::schema::parse::<C::Args>(args).map(|a| Box::new(a) as Box<dyn Any + Send>)
    }

    fn file_operation(&self, args: &(dyn Any + Send)) -> Option<FileOperation> {
        args.downcast_ref::<C::Args>()
            .and_then(|a| Command::file_operation(&self.0, a))
    }

    fn annotations(&self, services: &S, args: &(dyn Any + Send)) -> Annotations {
        match args.downcast_ref::<C::Args>() {
            Some(a) => Command::annotations_in(&self.0, services, a),
            None => Command::spec(&self.0).annotations,
        }
    }

    fn preview(&self, services: &S, args: &(dyn Any + Send)) -> Option<String> {
        args.downcast_ref::<C::Args>()
            .and_then(|a| Command::preview(&self.0, services, a))
    }

    fn programs(&self, services: &S, args: &(dyn Any + Send)) -> Vec<String> {
        args.downcast_ref::<C::Args>()
            .map(|a| Command::programs(&self.0, services, a))
            .unwrap_or_default()
    }

    fn precheck(
        &self,
        services: &S,
        source: &Source,
        args: &(dyn Any + Send),
    ) -> Result<(), CommandError> {
        match args.downcast_ref::<C::Args>() {
            Some(a) => Command::precheck(&self.0, services, source, a),
            None => Ok(()),
        }
    }

    fn run(&self, cx: &mut Cx<'_, S>, args: Box<dyn Any + Send>) -> Result<Value, CommandError> {
        serde_json::to_value(self.output(cx, args)?).map_err(unserialisable)
    }

    fn run_text(
        &self,
        cx: &mut Cx<'_, S>,
        args: Box<dyn Any + Send>,
    ) -> Result<Box<RawValue>, CommandError> {
        serde_json::value::to_raw_value(&self.output(cx, args)?).map_err(unserialisable)
    }
}

impl<C> Typed<C> {
    fn output<S>(
        &self,
        cx: &mut Cx<'_, S>,
        args: Box<dyn Any + Send>,
    ) -> Result<C::Output, CommandError>
    where
        C: Command<S>,
    {
        let args = args
            .downcast::<C::Args>()
            .map_err(|_| CommandError::new(ErrorCode::InternalError, "argument type mismatch"))?;
        Command::run(&self.0, cx, *args)
    }
}

/// A shared, type-erased command.
pub(crate) type SharedCommand<S> = Arc<dyn DynCommand<S>>;
