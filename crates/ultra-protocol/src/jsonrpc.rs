//! JSON-RPC 2.0 envelope: requests, notifications, responses and batches.
//!
//! Params are named (an object). A successful call's `result` is the command's data object
//! itself; a failed call carries the structured [`CommandError`] in `error.data`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use serde_json::Map;

use crate::{CommandError, CommandResult, ErrorCode};

/// A request id: a number, a string, or null.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Id {
    Num(i64),
    Str(String),
    Null,
}

/// A parsed call. `id == None` means a notification: it gets no response.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub id: Option<Id>,
    pub method: String,
    pub params: Value,
}

impl Request {
    /// Validate one JSON value as a JSON-RPC 2.0 request. On failure returns the error
    /// response to send (with the id, when one could be read).
    pub fn from_value(value: Value) -> Result<Request, Box<Response>> {
        let Value::Object(mut obj) = value else {
            return Err(Box::new(Response::error(
                Id::Null,
                invalid_request("a request must be a JSON object"),
            )));
        };
        let id = match obj.remove("id") {
            None => None,
            Some(v) => match serde_json::from_value::<Id>(v) {
                Ok(id) => Some(id),
                Err(_) => {
                    return Err(Box::new(Response::error(
                        Id::Null,
                        invalid_request("`id` must be a string, a number or null"),
                    )));
                }
            },
        };
        let reply_id = id.clone().unwrap_or(Id::Null);
        if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Err(Box::new(Response::error(
                reply_id,
                invalid_request("`jsonrpc` must be \"2.0\""),
            )));
        }
        let method = match obj.remove("method") {
            Some(Value::String(m)) => m,
            _ => {
                return Err(Box::new(Response::error(
                    reply_id,
                    invalid_request("`method` must be a string"),
                )));
            }
        };
        let params = match obj.remove("params") {
            None | Some(Value::Null) => Value::Object(Default::default()),
            Some(p @ Value::Object(_)) => p,
            Some(Value::Array(a)) if a.is_empty() => Value::Object(Default::default()),
            Some(Value::Array(_)) => {
                return Err(Box::new(Response::error(
                    reply_id,
                    invalid_request("params must be named (a JSON object), not positional"),
                )));
            }
            Some(_) => {
                return Err(Box::new(Response::error(
                    reply_id,
                    invalid_request("`params` must be an object"),
                )));
            }
        };
        Ok(Request { id, method, params })
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
    use serde_json::json;

    #[test]
    fn notification_has_no_id() {
        let r = Request::from_value(json!({"jsonrpc":"2.0","method":"x"})).unwrap();
        assert_eq!(r.id, None);
        let r = Request::from_value(json!({"jsonrpc":"2.0","method":"x","id":null})).unwrap();
        assert_eq!(r.id, Some(Id::Null));
    }

    #[test]
    fn rejects_bad_requests() {
        let e = Request::from_value(json!({"jsonrpc":"1.0","method":"x","id":3})).unwrap_err();
        assert_eq!(e.id, Id::Num(3));
        assert_eq!(e.error.unwrap().code, -32600);
        let e = Request::from_value(json!({"jsonrpc":"2.0","method":"x","id":3,"params":[1]}))
            .unwrap_err();
        assert_eq!(e.error.unwrap().code, -32600);
        assert!(Request::from_value(json!([1])).is_err());
    }
}
