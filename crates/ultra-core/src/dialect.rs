//! Other names for an operation, as data.
//!
//! The seeds name some operations differently: seed 003's `editor.save` is `ultra.save`
//! answering `{success: true, ...}`, its `fs.rename` is `ultra.renameFile` with `oldPath`
//! for `path`. Such a name is a [`Dialect`]: the name with its own title, description and
//! examples, the operation it reaches, how its arguments are renamed, and how the result
//! is reshaped. The registry turns each into a command that parses, checks and runs
//! through the target's own handler, so an operation's behaviour is written once.

use std::any::Any;

use serde_json::{Map, Value};
use ultra_protocol::command::Annotations;
use ultra_protocol::{CommandError, Source};

use crate::command::{CommandSpec, Cx, DynCommand, FileOperation, SharedCommand};
use crate::schema::Issue;

/// How a dialect's result differs from its target's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reshape {
    /// The target's result as it is.
    Same,
    /// Seed 003's `{success: boolean}`: `success: true` beside the target's fields
    /// (failures are errors).
    Success,
    /// `success` is true when the target's array field of this name is empty (a batch that
    /// reports its failures rather than failing).
    SuccessWhenEmpty(&'static str),
}

/// Another name for an operation: its own listing, the operation it reaches and how the
/// arguments and result map.
#[derive(Debug, Clone, Copy)]
pub struct Dialect {
    /// Id, title, category, description, examples and aliases of the dialect's name. Risk,
    /// what it touches and who may call it come from the target.
    pub spec: CommandSpec,
    /// The operation's id.
    pub target: &'static str,
    /// Argument names `(dialect, target)`, in both directions.
    pub args: &'static [(&'static str, &'static str)],
    /// The target's arguments this name does not take (refused as unknown, as before).
    pub omit: &'static [&'static str],
    /// Optional arguments of the target that this name requires (dialect names).
    pub require: &'static [&'static str],
    /// Target arguments this name sets itself, `(name, JSON value)`: not accepted from the
    /// caller (seed 003's `deleteRange` is `ultra.edit` with `text: ""`).
    pub fixed: &'static [(&'static str, &'static str)],
    /// Target arguments filled in when the caller leaves them out, `(target name, JSON
    /// value)`: optional here though the target requires them (seed 000's `ultra.git.stage`
    /// without a path stages everything, `files: ["."]`).
    pub defaults: &'static [(&'static str, &'static str)],
    /// Dialect arguments that take one value where the target takes an array: anything
    /// but an array (or null) becomes a one-element array (`path: "a"` is `files: ["a"]`).
    pub wrap: &'static [&'static str],
    /// Argument descriptions where the dialect's differ from the target's
    /// `(dialect name, text)` (a path the dialect requires has no default to mention).
    pub describe: &'static [(&'static str, &'static str)],
    /// Result field names `(target, dialect)`.
    pub results: &'static [(&'static str, &'static str)],
    /// The result's shape.
    pub reshape: Reshape,
}

impl Dialect {
    /// A dialect of `target` that takes the same arguments and answers the same result.
    pub const fn new(spec: CommandSpec, target: &'static str) -> Dialect {
        Dialect {
            spec,
            target,
            args: &[],
            omit: &[],
            require: &[],
            fixed: &[],
            defaults: &[],
            wrap: &[],
            describe: &[],
            results: &[],
            reshape: Reshape::Same,
        }
    }

    /// Rename arguments: `(dialect name, target name)`.
    pub const fn args(mut self, renames: &'static [(&'static str, &'static str)]) -> Self {
        self.args = renames;
        self
    }

    /// Arguments of the target this name does not accept.
    pub const fn omit(mut self, names: &'static [&'static str]) -> Self {
        self.omit = names;
        self
    }

    /// Arguments this name requires though the target does not.
    pub const fn require(mut self, names: &'static [&'static str]) -> Self {
        self.require = names;
        self
    }

    /// Arguments this name sets itself: `(target name, JSON value)`.
    pub const fn fixed(mut self, values: &'static [(&'static str, &'static str)]) -> Self {
        self.fixed = values;
        self
    }

    /// Arguments filled in when the caller leaves them out: `(target name, JSON value)`.
    pub const fn defaults(mut self, values: &'static [(&'static str, &'static str)]) -> Self {
        self.defaults = values;
        self
    }

    /// Arguments that take one value where the target takes an array (dialect names).
    pub const fn wrap(mut self, names: &'static [&'static str]) -> Self {
        self.wrap = names;
        self
    }

    /// Describe arguments in the dialect's words: `(dialect name, text)`.
    pub const fn describe(mut self, texts: &'static [(&'static str, &'static str)]) -> Self {
        self.describe = texts;
        self
    }

    /// Rename result fields: `(target name, dialect name)`.
    pub const fn results(mut self, renames: &'static [(&'static str, &'static str)]) -> Self {
        self.results = renames;
        self
    }

    /// Reshape the result.
    pub const fn reshape(mut self, reshape: Reshape) -> Self {
        self.reshape = reshape;
        self
    }

    /// The spec the registry lists: the dialect's words, the target's risk and reach.
    pub(crate) fn merged_spec(&self, target: &CommandSpec) -> CommandSpec {
        CommandSpec {
            annotations: target.annotations,
            touches: target.touches,
            sources: target.sources,
            long: target.long,
            forwards: target.forwards,
            confirm: target.confirm,
            quiet: target.quiet,
            ..self.spec
        }
    }

    fn target_name(&self, name: &str) -> Option<&'static str> {
        self.args.iter().find(|(d, _)| *d == name).map(|(_, t)| *t)
    }

    fn dialect_name(&self, name: &str) -> Option<&'static str> {
        self.args.iter().find(|(_, t)| *t == name).map(|(d, _)| *d)
    }

    /// The call's arguments in the target's names. A name the dialect renamed or omits is
    /// refused as unknown, as a command of its own would.
    fn translate(&self, args: Value) -> Result<Value, Vec<Issue>> {
        let fields = match args {
            Value::Object(fields) => fields,
            Value::Null => Map::new(),
            other => return Ok(other),
        };
        if let Some(missing) = self.require.iter().find(|r| !fields.contains_key(**r)) {
            return Err(vec![Issue {
                path: format!("/{missing}"),
                code: "missing_field",
                message: format!("missing field `{missing}`"),
            }]);
        }
        let mut out = Map::new();
        for (k, v) in fields {
            let wrapped = self.wrap.contains(&k.as_str());
            let key = match self.target_name(&k) {
                Some(t) => t.to_string(),
                None if self.omit.contains(&k.as_str())
                    || self.fixed.iter().any(|(f, _)| *f == k)
                    || self.dialect_name(&k).is_some() =>
                {
                    return Err(vec![Issue {
                        path: format!("/{k}"),
                        code: "unknown_field",
                        message: format!("unknown field `{k}`"),
                    }]);
                }
                None => k,
            };
            let v = match v {
                Value::Array(_) | Value::Null => v,
                one if wrapped => Value::Array(vec![one]),
                other => other,
            };
            out.insert(key, v);
        }
        for (k, v) in self.fixed {
            let v = serde_json::from_str(v).unwrap_or(Value::Null);
            out.insert((*k).to_string(), v);
        }
        for (k, v) in self.defaults {
            if out.get(*k).is_none_or(Value::is_null) {
                let v = serde_json::from_str(v).unwrap_or(Value::Null);
                out.insert((*k).to_string(), v);
            }
        }
        Ok(Value::Object(out))
    }

    /// An issue's path and message in the dialect's names.
    fn untranslate(&self, mut issue: Issue) -> Issue {
        for (d, t) in self.args {
            let from = format!("/{t}");
            if issue.path == from || issue.path.starts_with(&format!("{from}/")) {
                issue.path = format!("/{d}{}", &issue.path[from.len()..]);
            }
            issue.message = issue.message.replace(&format!("`{t}`"), &format!("`{d}`"));
        }
        issue
    }

    /// The target's argument schema in the dialect's names.
    fn args_schema(&self, mut schema: Value) -> Value {
        let Some(obj) = schema.as_object_mut() else {
            return schema;
        };
        if let Some(Value::Object(props)) = obj.get_mut("properties") {
            let old = std::mem::take(props);
            for (k, v) in old {
                if self.omit.contains(&k.as_str()) || self.fixed.iter().any(|(f, _)| *f == k) {
                    continue;
                }
                let name = self.dialect_name(&k).map_or(k, str::to_string);
                props.insert(name, v);
            }
        }
        if let Some(Value::Object(props)) = obj.get_mut("properties") {
            // A required argument is not null, though the target's may be.
            for r in self.require {
                if let Some(Value::Array(types)) = props.get_mut(*r).and_then(|p| p.get_mut("type"))
                {
                    types.retain(|t| t != "null");
                }
                if let Some(p) = props.get_mut(*r)
                    && let Some(Value::Array(types)) = p.get("type")
                    && types.len() == 1
                {
                    p["type"] = types[0].clone();
                }
            }
        }
        if let Some(Value::Object(props)) = obj.get_mut("properties") {
            for name in self.wrap {
                let Some(Value::Object(p)) = props.get_mut(*name) else {
                    continue;
                };
                let Some(items) = p.get("items").cloned() else {
                    continue;
                };
                let description = p.remove("description");
                let array = Value::Object(std::mem::take(p));
                p.insert("anyOf".into(), Value::Array(vec![items, array]));
                if let Some(d) = description {
                    p.insert("description".into(), d);
                }
            }
            for (name, text) in self.describe {
                if let Some(Value::Object(p)) = props.get_mut(*name) {
                    p.insert("description".into(), (*text).into());
                }
            }
        }
        if !self.require.is_empty() {
            let required = obj
                .entry("required")
                .or_insert_with(|| Value::Array(Vec::new()));
            if let Value::Array(required) = required {
                for r in self.require {
                    let target = self.target_name(r).unwrap_or(r);
                    required.push(Value::from(target));
                }
            }
        }
        if let Some(Value::Array(required)) = obj.get_mut("required") {
            required.retain(|r| {
                !r.as_str().is_some_and(|r| {
                    self.omit.contains(&r)
                        || self.fixed.iter().any(|(f, _)| *f == r)
                        || self.defaults.iter().any(|(f, _)| *f == r)
                })
            });
            for r in required.iter_mut() {
                if let Some(d) = r.as_str().and_then(|t| self.dialect_name(t)) {
                    *r = Value::from(d);
                }
            }
        }
        if obj
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(Vec::is_empty)
        {
            obj.remove("required");
        }
        obj.remove("title");
        obj.insert(
            "description".into(),
            format!("Arguments of `{}`.", self.spec.id).into(),
        );
        schema
    }

    /// The target's result in the dialect's shape.
    fn result(&self, value: Value) -> Value {
        let Value::Object(fields) = value else {
            return value;
        };
        let success = match self.reshape {
            Reshape::Same => None,
            Reshape::Success => Some(true),
            Reshape::SuccessWhenEmpty(f) => Some(
                fields
                    .get(f)
                    .and_then(Value::as_array)
                    .is_none_or(Vec::is_empty),
            ),
        };
        let mut out = Map::new();
        if let Some(s) = success {
            out.insert("success".into(), s.into());
        }
        for (k, v) in fields {
            let name = self
                .results
                .iter()
                .find(|(t, _)| *t == k)
                .map_or(k, |(_, d)| (*d).to_string());
            out.insert(name, v);
        }
        Value::Object(out)
    }

    /// The target's result schema in the dialect's shape.
    fn result_schema(&self, mut schema: Value) -> Value {
        let Some(obj) = schema.as_object_mut() else {
            return schema;
        };
        if let Some(Value::Object(props)) = obj.get_mut("properties") {
            let old = std::mem::take(props);
            if self.reshape != Reshape::Same {
                props.insert(
                    "success".into(),
                    serde_json::json!({"type": "boolean", "description": "Whether the operation happened (failures are errors)."}),
                );
            }
            for (k, v) in old {
                let name = self
                    .results
                    .iter()
                    .find(|(t, _)| *t == k)
                    .map_or(k, |(_, d)| (*d).to_string());
                props.insert(name, v);
            }
        }
        if let Some(Value::Array(required)) = obj.get_mut("required") {
            for r in required.iter_mut() {
                if let Some((_, d)) = self.results.iter().find(|(t, _)| r.as_str() == Some(t)) {
                    *r = Value::from(*d);
                }
            }
            if self.reshape != Reshape::Same {
                required.insert(0, "success".into());
            }
        }
        obj.remove("title");
        schema
    }
}

/// A dialect bound to its target's handler.
pub(crate) struct DialectCommand<S> {
    pub(crate) dialect: &'static Dialect,
    pub(crate) spec: &'static CommandSpec,
    pub(crate) target: SharedCommand<S>,
}

impl<S> DynCommand<S> for DialectCommand<S> {
    fn spec(&self) -> &'static CommandSpec {
        self.spec
    }

    fn target(&self) -> Option<&'static str> {
        Some(self.dialect.target)
    }

    fn args_schema(&self) -> Value {
        self.dialect.args_schema(self.target.args_schema())
    }

    fn result_schema(&self) -> Value {
        self.dialect.result_schema(self.target.result_schema())
    }

    fn parse(&self, args: Value) -> Result<Box<dyn Any + Send>, Vec<Issue>> {
        let args = self.dialect.translate(args)?;
        self.target.parse(args).map_err(|issues| {
            issues
                .into_iter()
                .map(|i| self.dialect.untranslate(i))
                .collect()
        })
    }

    fn file_operation(&self, args: &(dyn Any + Send)) -> Option<FileOperation> {
        self.target.file_operation(args)
    }

    fn annotations(&self, services: &S, args: &(dyn Any + Send)) -> Annotations {
        self.target.annotations(services, args)
    }

    fn preview(&self, services: &S, args: &(dyn Any + Send)) -> Option<String> {
        self.target.preview(services, args)
    }

    fn programs(&self, services: &S, args: &(dyn Any + Send)) -> Vec<String> {
        self.target.programs(services, args)
    }

    fn precheck(
        &self,
        services: &S,
        source: &Source,
        args: &(dyn Any + Send),
    ) -> Result<(), CommandError> {
        self.target.precheck(services, source, args)
    }

    fn run(&self, cx: &mut Cx<'_, S>, args: Box<dyn Any + Send>) -> Result<Value, CommandError> {
        self.target.run(cx, args).map(|v| self.dialect.result(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    static RENAME: Dialect = Dialect::new(
        CommandSpec::new("fs.rename", "FS: Rename", "File System", "Move a file."),
        "ultra.renameFile",
    )
    .args(&[("oldPath", "path")])
    .omit(&["confirm"])
    .results(&[("path", "oldPath")])
    .reshape(Reshape::Success);

    #[test]
    fn arguments_are_renamed_and_omitted_names_refused() {
        let t = RENAME
            .translate(json!({"oldPath": "a", "newPath": "b"}))
            .unwrap();
        assert_eq!(t, json!({"path": "a", "newPath": "b"}));
        let e = RENAME.translate(json!({"path": "a"})).unwrap_err();
        assert_eq!(e[0].path, "/path");
        assert_eq!(e[0].code, "unknown_field");
        let e = RENAME.translate(json!({"confirm": true})).unwrap_err();
        assert_eq!(e[0].path, "/confirm");
        let close =
            Dialect::new(CommandSpec::new("e.close", "", "", ""), "u.close").require(&["path"]);
        let e = close.translate(json!({"force": true})).unwrap_err();
        assert_eq!((e[0].path.as_str(), e[0].code), ("/path", "missing_field"));
        let s = close.args_schema(json!({"properties": {"path": {"type": ["string", "null"]}}}));
        assert_eq!(s["required"], json!(["path"]));
        assert_eq!(s["properties"]["path"]["type"], json!("string"));
    }

    #[test]
    fn one_value_is_wrapped_and_defaults_fill_what_is_left_out() {
        let stage = Dialect::new(CommandSpec::new("u.git.stage", "", "", ""), "git.stage")
            .args(&[("path", "files")])
            .wrap(&["path"])
            .defaults(&[("files", r#"["."]"#)]);
        assert_eq!(
            stage.translate(json!({"path": "a.ts"})).unwrap(),
            json!({"files": ["a.ts"]})
        );
        assert_eq!(
            stage.translate(json!({"path": ["a", "b"]})).unwrap(),
            json!({"files": ["a", "b"]})
        );
        assert_eq!(stage.translate(json!({})).unwrap(), json!({"files": ["."]}));
        assert_eq!(
            stage.translate(json!({"path": null})).unwrap(),
            json!({"files": ["."]})
        );
        let s = stage.args_schema(json!({
            "properties": {"files": {"type": "array", "items": {"type": "string"}, "description": "d"}},
            "required": ["files"]
        }));
        assert!(s.get("required").is_none());
        assert_eq!(
            s["properties"]["path"],
            json!({"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}], "description": "d"})
        );
    }

    #[test]
    fn fixed_arguments_are_set_and_refused_from_the_caller() {
        let del = Dialect::new(CommandSpec::new("e.deleteRange", "", "", ""), "u.edit")
            .fixed(&[("text", r#""""#)]);
        assert_eq!(
            del.translate(json!({"range": 1})).unwrap(),
            json!({"range": 1, "text": ""})
        );
        assert_eq!(
            del.translate(json!({"text": "x"})).unwrap_err()[0].path,
            "/text"
        );
        let s = del.args_schema(
            json!({"properties": {"text": {}, "range": {}}, "required": ["range", "text"]}),
        );
        assert_eq!(s["required"], json!(["range"]));
        assert!(s["properties"].get("text").is_none());
    }

    #[test]
    fn issues_speak_the_dialect() {
        let i = RENAME.untranslate(Issue {
            path: "/path".into(),
            code: "missing_field",
            message: "missing field `path`".into(),
        });
        assert_eq!(i.path, "/oldPath");
        assert_eq!(i.message, "missing field `oldPath`");
    }

    #[test]
    fn results_are_reshaped() {
        assert_eq!(
            RENAME.result(json!({"path": "a", "newPath": "b"})),
            json!({"success": true, "oldPath": "a", "newPath": "b"})
        );
        let all = Dialect::new(CommandSpec::new("e.saveAll", "", "", ""), "u.saveAll")
            .reshape(Reshape::SuccessWhenEmpty("failed"));
        assert_eq!(
            all.result(json!({"saved": [], "failed": [{"path": "x"}]}))["success"],
            json!(false)
        );
        assert_eq!(
            all.result(json!({"saved": [], "failed": []}))["success"],
            json!(true)
        );
    }

    #[test]
    fn schemas_use_the_dialect_names() {
        let s = RENAME.args_schema(json!({
            "type": "object",
            "title": "RenameArgs",
            "properties": {"path": {"type": "string"}, "newPath": {"type": "string"}, "confirm": {"type": "boolean"}},
            "required": ["path", "newPath"]
        }));
        assert_eq!(s["required"], json!(["oldPath", "newPath"]));
        assert!(s["properties"].get("confirm").is_none());
        assert!(s["properties"].get("oldPath").is_some());
        let r = RENAME.result_schema(json!({
            "type": "object",
            "properties": {"path": {"type": "string"}, "newPath": {"type": "string"}},
            "required": ["path", "newPath"]
        }));
        assert_eq!(r["required"], json!(["success", "oldPath", "newPath"]));
    }
}
