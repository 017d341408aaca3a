//! JSON-RPC 2.0 envelope: requests, notifications, responses and batches.
//!
//! Params are named (an object). Ids are echoed back as the exact JSON text sent, so a
//! message is split into requests as raw JSON ([`Incoming`]) before any is read. A
//! successful call's `result` is the command's data object
//! itself; a failed call carries the structured [`CommandError`] in `error.data`.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::de::Error as _;
use serde::ser::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

use serde_json::Map;

use crate::{CommandError, CommandResult, ErrorCode};

/// A request id: a number, a string, or null. Echoed back exactly as the client sent it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Id {
    /// A number, kept as the JSON text sent (`7`, `1.0`, `1e3`, `18446744073709551616`):
    /// converting it to `i64` or `f64` would answer a different id than was asked.
    Num(IdNumber),
    Str(String),
    Null,
}

/// A numeric id as JSON number text; always a valid JSON number.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IdNumber(String);

impl IdNumber {
    /// `text` if it is exactly one JSON number (no surrounding whitespace).
    pub fn parse(text: &str) -> Option<IdNumber> {
        let starts_like_a_number = text
            .bytes()
            .next()
            .is_some_and(|b| b == b'-' || b.is_ascii_digit());
        // A JSON value that starts with `-` or a digit is a number.
        let whole = serde_json::from_str::<&RawValue>(text).is_ok_and(|raw| raw.get() == text);
        (starts_like_a_number && whole).then(|| IdNumber(text.to_string()))
    }

    /// The number's JSON text, as sent.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<i64> for IdNumber {
    fn from(n: i64) -> IdNumber {
        IdNumber(n.to_string())
    }
}

impl From<i64> for Id {
    fn from(n: i64) -> Id {
        Id::Num(n.into())
    }
}

impl Id {
    /// Read an id from its raw JSON text; `None` for anything but a string, a number or
    /// null.
    pub fn from_raw(raw: &RawValue) -> Option<Id> {
        let text = raw.get().trim();
        match text.bytes().next()? {
            b'"' => serde_json::from_str(text).ok().map(Id::Str),
            b'n' if text == "null" => Some(Id::Null),
            // A raw value is one whole JSON value, so one that starts like a number is one.
            b'-' | b'0'..=b'9' => Some(Id::Num(IdNumber(text.to_string()))),
            _ => None,
        }
    }
}

impl Serialize for Id {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            // Written as raw JSON, so the number's text goes out unchanged.
            Id::Num(n) => serde_json::from_str::<&RawValue>(n.as_str())
                .map_err(S::Error::custom)?
                .serialize(s),
            Id::Str(text) => s.serialize_str(text),
            Id::Null => s.serialize_unit(),
        }
    }
}

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Id, D::Error> {
        let raw = Box::<RawValue>::deserialize(d)?;
        Id::from_raw(&raw)
            .ok_or_else(|| D::Error::custom("an id must be a string, a number or null"))
    }
}

/// One message as received: a single value or a batch, each element kept as its JSON text
/// until it is read as a request, so ids survive exactly.
#[derive(Debug)]
pub enum Incoming {
    One(Box<RawValue>),
    Batch(Vec<Box<RawValue>>),
}

impl Incoming {
    /// Split a message into its requests without reading them. Fails on text that is not
    /// JSON, and on nesting deeper than [`MAX_DEPTH`]: skipping over values is iterative,
    /// so this bound, not the stack, is what refuses `[[[[...`.
    pub fn parse(bytes: &[u8]) -> Result<Incoming, serde_json::Error> {
        let raw: Box<RawValue> = serde_json::from_slice(bytes)?;
        if nesting_exceeds(raw.get(), MAX_DEPTH) {
            return Err(serde::de::Error::custom(format!(
                "nesting deeper than {MAX_DEPTH} levels"
            )));
        }
        if raw.get().starts_with('[') {
            serde_json::from_str(raw.get()).map(Incoming::Batch)
        } else {
            Ok(Incoming::One(raw))
        }
    }
}

/// The deepest nesting of arrays and objects a message may have (serde_json's own limit
/// when it parses a `Value`).
pub const MAX_DEPTH: usize = 128;

/// Whether valid JSON `text` nests arrays and objects deeper than `max`. Brackets inside
/// strings do not count.
fn nesting_exceeds(text: &str, max: usize) -> bool {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for b in text.bytes() {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// The members of a JSON object, each as raw JSON text; `None` when `raw` is no object.
/// A key given twice keeps its last value, as a parse to `Value` would.
pub fn members(raw: &RawValue) -> Option<BTreeMap<String, &RawValue>> {
    if !raw.get().starts_with('{') {
        return None;
    }
    serde_json::from_str(raw.get()).ok()
}

/// A parsed call. `id == None` means a notification: it gets no response.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub id: Option<Id>,
    pub method: String,
    pub params: Value,
}

/// Why a message is not a request: the error to answer with, and the id to answer to
/// (the request's, when one could be read; null otherwise).
#[derive(Debug, Clone, PartialEq)]
pub struct Invalid {
    pub id: Id,
    pub error: CommandError,
}

impl From<Invalid> for Response {
    fn from(invalid: Invalid) -> Response {
        Response::error(invalid.id, invalid.error)
    }
}

impl Request {
    /// Validate one JSON value, as raw text, as a JSON-RPC 2.0 request.
    ///
    /// Params are named: an object, or left out (= `{}`). An array (positional params,
    /// even `[]`) is Invalid params (-32602); `null` or any other value is Invalid
    /// Request (-32600).
    pub fn from_raw(raw: &RawValue) -> Result<Request, Box<Invalid>> {
        let fail = |id: &Id, error: CommandError| {
            Box::new(Invalid {
                id: id.clone(),
                error,
            })
        };
        let obj = raw.get().starts_with('{');
        let Some(obj) = obj
            .then(|| serde_json::from_str::<Envelope<'_>>(raw.get()).ok())
            .flatten()
        else {
            return Err(fail(
                &Id::Null,
                invalid_request("a request must be a JSON object"),
            ));
        };
        let id = match obj.id {
            None => None,
            Some(v) => match Id::from_raw(v) {
                Some(id) => Some(id),
                None => {
                    return Err(fail(
                        &Id::Null,
                        invalid_request("`id` must be a string, a number or null"),
                    ));
                }
            },
        };
        let reply_id = id.clone().unwrap_or(Id::Null);
        if obj.jsonrpc.and_then(string).as_deref() != Some("2.0") {
            return Err(fail(
                &reply_id,
                invalid_request("`jsonrpc` must be \"2.0\""),
            ));
        }
        let Some(method) = obj.method.and_then(string).map(Cow::into_owned) else {
            return Err(fail(
                &reply_id,
                invalid_request("`method` must be a string"),
            ));
        };
        let params = match obj.params.map(|p| p.get()) {
            None => Value::Object(Map::new()),
            Some(p) if p.starts_with('{') => match serde_json::from_str(p) {
                Ok(v) => v,
                // Valid JSON already: only the depth limit can refuse it here.
                Err(e) => {
                    let err =
                        CommandError::new(ErrorCode::ParseError, format!("invalid JSON: {e}"))
                            .with_suggestion("nest params less deeply");
                    return Err(fail(&reply_id, err));
                }
            },
            Some(p) if p.starts_with('[') => {
                let err = CommandError::new(
                    ErrorCode::InvalidArguments,
                    "params must be an object by name, not positional (an array)",
                )
                .with_suggestion("pass params by name: \"params\": {\"path\": \"src/main.rs\"}, or leave params out");
                return Err(fail(&reply_id, err));
            }
            Some(_) => {
                return Err(fail(
                    &reply_id,
                    invalid_request("`params` must be an object by name, or left out"),
                ));
            }
        };
        Ok(Request { id, method, params })
    }
}

/// The members a request is read from, as raw JSON text, found in one pass over the
/// object; other members are skipped. A key given twice keeps its last value, as a parse
/// to `Value` would.
#[derive(Default)]
struct Envelope<'a> {
    jsonrpc: Option<&'a RawValue>,
    id: Option<&'a RawValue>,
    method: Option<&'a RawValue>,
    params: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(field_identifier, rename_all = "lowercase")]
enum Member {
    Jsonrpc,
    Id,
    Method,
    Params,
    #[serde(other)]
    Other,
}

impl<'de> Deserialize<'de> for Envelope<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Envelope<'de>, D::Error> {
        struct Members;
        impl<'de> serde::de::Visitor<'de> for Members {
            type Value = Envelope<'de>;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Envelope<'de>, A::Error> {
                let mut e = Envelope::default();
                while let Some(key) = map.next_key::<Member>()? {
                    let slot = match key {
                        Member::Jsonrpc => &mut e.jsonrpc,
                        Member::Id => &mut e.id,
                        Member::Method => &mut e.method,
                        Member::Params => &mut e.params,
                        Member::Other => {
                            map.next_value::<serde::de::IgnoredAny>()?;
                            continue;
                        }
                    };
                    *slot = Some(map.next_value()?);
                }
                Ok(e)
            }
        }
        d.deserialize_map(Members)
    }
}

/// A JSON string's value; `None` for any other JSON value. Borrowed unless it has escapes.
fn string(raw: &RawValue) -> Option<Cow<'_, str>> {
    let text = raw.get();
    match text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        Some(inner) if !inner.contains('\\') => Some(Cow::Borrowed(inner)),
        _ => serde_json::from_str::<String>(text).ok().map(Cow::Owned),
    }
}

fn invalid_request(message: &str) -> CommandError {
    CommandError::new(ErrorCode::InvalidRequest, message).with_suggestion(
        "send {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ultra.listCommands\",\"params\":{}}",
    )
}

/// The `error` member of a response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    pub code: i64,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl From<CommandError> for ErrorObject {
    fn from(err: CommandError) -> ErrorObject {
        ErrorObject {
            code: err.code.rpc_code(),
            message: err.message.clone(),
            data: serde_json::to_value(&err).ok(),
        }
    }
}

/// A response to one request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Response {
    pub jsonrpc: String,
    pub id: Id,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorObject>,
}

impl Response {
    /// A success response.
    pub fn result(id: Id, result: Value) -> Response {
        Response {
            jsonrpc: "2.0".into(),
            id,
            result: Some(result),
            error: None,
        }
    }

    /// The response carrying `outcome`: its result, or its error object.
    pub fn answer(id: Id, outcome: Result<Value, ErrorObject>) -> Response {
        match outcome {
            Ok(result) => Response::result(id, result),
            Err(error) => Response {
                jsonrpc: "2.0".into(),
                id,
                result: None,
                error: Some(error),
            },
        }
    }

    /// An error response.
    pub fn error(id: Id, error: CommandError) -> Response {
        Response {
            jsonrpc: "2.0".into(),
            id,
            result: None,
            error: Some(error.into()),
        }
    }

    /// Map a command's result onto JSON-RPC: `result` is the data itself; warnings ride along
    /// as `result._warnings` when the data is an object. A failure becomes an `error` whose
    /// `data` is the structured error, with the agent feedback (and warnings) added.
    pub fn outcome(result: CommandResult) -> Result<Value, ErrorObject> {
        let CommandResult {
            success,
            data,
            error,
            warnings,
            feedback,
        } = result;
        if success {
            let mut data = data.unwrap_or_else(|| Value::Object(Map::new()));
            if !warnings.is_empty()
                && let Value::Object(map) = &mut data
            {
                map.insert(
                    "_warnings".into(),
                    serde_json::to_value(&warnings).unwrap_or(Value::Null),
                );
            }
            return Ok(data);
        }
        let error = error.unwrap_or_else(|| {
            CommandError::new(
                ErrorCode::InternalError,
                "the command failed without saying why",
            )
        });
        let mut obj = ErrorObject::from(error);
        if let Some(Value::Object(map)) = obj.data.as_mut() {
            if let Some(fb) = feedback {
                map.insert(
                    "feedback".into(),
                    serde_json::to_value(&fb).unwrap_or(Value::Null),
                );
            }
            if !warnings.is_empty() {
                map.insert(
                    "warnings".into(),
                    serde_json::to_value(&warnings).unwrap_or(Value::Null),
                );
            }
        }
        Err(obj)
    }
}

/// A response as it is sent: a [`Response`], or a success whose result is JSON text
/// already (a command's output serialised once, with no `Value` built between).
#[derive(Debug)]
pub enum Outgoing {
    Response(Response),
    Text { id: Id, result: Box<RawValue> },
}

impl Outgoing {
    /// The answer to call `id`: its `result`, whose data is `text` when that is given,
    /// mapped as [`Response::outcome`] maps it.
    pub fn answer(id: Id, result: CommandResult, text: Option<Box<RawValue>>) -> Outgoing {
        let result = match text {
            Some(text) if result.success && result.warnings.is_empty() => {
                return Outgoing::Text { id, result: text };
            }
            // Warnings go into the data, which is read for that (rare).
            Some(text) => CommandResult {
                data: serde_json::from_str(text.get()).ok(),
                ..result
            },
            None => result,
        };
        Outgoing::Response(Response::answer(id, Response::outcome(result)))
    }
}

impl From<Response> for Outgoing {
    fn from(r: Response) -> Outgoing {
        Outgoing::Response(r)
    }
}

impl Serialize for Outgoing {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        match self {
            Outgoing::Response(r) => r.serialize(s),
            Outgoing::Text { id, result } => {
                let mut m = s.serialize_struct("Response", 3)?;
                m.serialize_field("jsonrpc", "2.0")?;
                m.serialize_field("id", id)?;
                m.serialize_field("result", result)?;
                m.end()
            }
        }
    }
}

/// A server-to-client notification.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Notification {
    pub jsonrpc: String,
    pub method: String,
    pub params: Value,
}

impl Notification {
    /// A notification with the given method and params.
    pub fn new(method: impl Into<String>, params: Value) -> Notification {
        Notification {
            jsonrpc: "2.0".into(),
            method: method.into(),
            params,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Request, Box<Invalid>> {
        let raw: Box<RawValue> = serde_json::from_str(text).unwrap();
        Request::from_raw(&raw)
    }

    #[test]
    fn notification_has_no_id() {
        let r = parse(r#"{"jsonrpc":"2.0","method":"x"}"#).unwrap();
        assert_eq!(r.id, None);
        let r = parse(r#"{"jsonrpc":"2.0","method":"x","id":null}"#).unwrap();
        assert_eq!(r.id, Some(Id::Null));
    }

    #[test]
    fn numeric_ids_echo_as_sent() {
        for id in [
            "1",
            "1.0",
            "3.5",
            "1e3",
            "-0",
            "18446744073709551616",
            "-9223372036854775809",
        ] {
            let r = parse(&format!(r#"{{"jsonrpc":"2.0","method":"x","id":{id}}}"#)).unwrap();
            let reply = Response::result(r.id.unwrap(), Value::Null);
            let text = serde_json::to_string(&reply).unwrap();
            assert!(text.contains(&format!(r#""id":{id},"#)), "{text}");
            let back: Response = serde_json::from_str(&text).unwrap();
            assert_eq!(back.id, Id::Num(IdNumber::parse(id).unwrap()));
        }
        let r = parse(r#"{"jsonrpc":"2.0","method":"x","id":"a\"b"}"#).unwrap();
        assert_eq!(r.id, Some(Id::Str("a\"b".into())));
        // From an already parsed `Value` too (clients read replies that way).
        let v = serde_json::json!({"jsonrpc": "2.0", "id": 5, "result": 1});
        assert_eq!(
            serde_json::from_value::<Response>(v).unwrap().id,
            Id::from(5)
        );
        assert_eq!(IdNumber::parse(" 1"), None);
        assert_eq!(IdNumber::parse("1 2"), None);
        assert_eq!(IdNumber::parse("[1]"), None);
    }

    #[test]
    fn rejects_bad_requests() {
        let e = parse(r#"{"jsonrpc":"1.0","method":"x","id":3}"#).unwrap_err();
        assert_eq!(e.id, Id::from(3));
        assert_eq!(e.error.code.rpc_code(), -32600);
        for params in ["[1]", "[]"] {
            let e = parse(&format!(
                r#"{{"jsonrpc":"2.0","method":"x","id":3,"params":{params}}}"#
            ))
            .unwrap_err();
            assert_eq!(e.error.code.rpc_code(), -32602);
            assert!(
                e.error.message.contains("object by name"),
                "{}",
                e.error.message
            );
        }
        let e = parse(r#"{"jsonrpc":"2.0","method":"x","id":3,"params":null}"#).unwrap_err();
        assert_eq!(e.error.code.rpc_code(), -32600);
        assert!(parse("[1]").is_err());
        assert!(parse(r#"{"jsonrpc":"2.0","method":"x","id":[1]}"#).is_err());
        let deep = format!(
            r#"{{"jsonrpc":"2.0","method":"x","id":1,"params":{{"a":{}1{}}}}}"#,
            "[".repeat(10_000),
            "]".repeat(10_000)
        );
        assert_eq!(parse(&deep).unwrap_err().error.code, ErrorCode::ParseError);
    }

    /// What a request says, read the slow way: the whole message parsed to a `Value`.
    fn oracle(text: &str) -> Option<(Option<Id>, String, Value)> {
        let Value::Object(obj) = serde_json::from_str::<Value>(text).ok()? else {
            return None;
        };
        let id = match obj.get("id") {
            None => None,
            Some(Value::Null) => Some(Id::Null),
            Some(Value::String(s)) => Some(Id::Str(s.clone())),
            Some(Value::Number(n)) => Some(Id::Num(IdNumber(n.to_string()))),
            Some(_) => return None,
        };
        if obj.get("jsonrpc") != Some(&Value::String("2.0".into())) {
            return None;
        }
        let method = obj.get("method")?.as_str()?.to_string();
        let params = match obj.get("params") {
            None => Value::Object(Map::new()),
            Some(p @ Value::Object(_)) => p.clone(),
            Some(_) => return None,
        };
        Some((id, method, params))
    }

    proptest::proptest! {
        /// Members in any order, given twice, spelled with escapes, among others: read as
        /// a parse of the whole object reads them.
        #[test]
        fn a_request_reads_as_its_value_does(
            members in proptest::collection::vec((0usize..7, 0usize..9), 0..7)
        ) {
            const KEYS: [&str; 7] =
                ["jsonrpc", "id", "method", "params", "x", r#"meth\u006fd"#, r#"\u0069d"#];
            const VALUES: [&str; 9] = [
                r#""2.0""#, r#""2\u002e0""#, "7", r#""a\"b""#, "null", r#"{"p":[1,{"q":2}]}"#,
                "{}", "[1]", r#""ultra.getWorkspaceInfo""#,
            ];
            let body: Vec<String> = members
                .iter()
                .map(|&(k, v)| format!(r#""{}":{}"#, KEYS[k], VALUES[v]))
                .collect();
            let text = format!("{{{}}}", body.join(","));
            let got = parse(&text).ok().map(|r| (r.id, r.method, r.params));
            proptest::prop_assert_eq!(got, oracle(&text), "{}", text);
        }
    }

    #[test]
    fn a_result_sent_as_text_reads_as_one_sent_as_a_value() {
        let data = serde_json::json!({"b": 1, "a": [true, null, "x\"y"]});
        let text = serde_json::value::to_raw_value(&data).unwrap();
        let warned = |mut r: CommandResult| {
            r.warnings.push(crate::Warning {
                code: "W".into(),
                message: "careful".into(),
                location: None,
            });
            r
        };
        let failed = CommandResult::err(CommandError::new(ErrorCode::FileNotFound, "gone"));
        for (result, text) in [
            (CommandResult::ok(data.clone()), None),
            (
                CommandResult {
                    data: None,
                    ..CommandResult::ok(Value::Null)
                },
                Some(text.clone()),
            ),
            (warned(CommandResult::ok(data.clone())), None),
            (
                warned(CommandResult {
                    data: None,
                    ..CommandResult::ok(Value::Null)
                }),
                Some(text),
            ),
            (failed.clone(), None),
        ] {
            let id = Id::from(7);
            let sent =
                serde_json::to_string(&Outgoing::answer(id.clone(), result.clone(), text)).unwrap();
            let mut expected = result;
            expected.data = expected.data.or(Some(data.clone()));
            let expected = Response::answer(id, Response::outcome(expected));
            assert_eq!(sent, serde_json::to_string(&expected).unwrap());
        }
    }

    #[test]
    fn messages_split_into_requests() {
        let Ok(Incoming::Batch(items)) = Incoming::parse(br#" [{"id":1e3}, 2]"#) else {
            panic!("a batch");
        };
        assert_eq!(items[0].get(), r#"{"id":1e3}"#);
        assert!(matches!(Incoming::parse(b" {}"), Ok(Incoming::One(_))));
        assert!(Incoming::parse(b"{").is_err());
        let deep = format!("{}{}", "[".repeat(129), "]".repeat(129));
        assert!(Incoming::parse(deep.as_bytes()).is_err());
        let fine = format!(r#"[{}"[[[\"["{}]"#, "[".repeat(127), "]".repeat(127));
        assert!(Incoming::parse(fine.as_bytes()).is_ok());
    }
}
