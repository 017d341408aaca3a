//! Seed 001's `create_file` and `delete_file`: `ultra.createFile` (never over an existing
//! file) and `ultra.deleteFile` under seed 001's names and arguments. A person confirms
//! every call from an agent, shown the content (and, for a delete, the files that import
//! it), unless policy or auto-apply says otherwise.

use schemars::JsonSchema;
use serde::Deserialize;
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::{CommandError, Source};

use ultra_services::Services;

/// Register `code.createFile` and `code.deleteFile`.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(CreateFile)?;
    r.register(DeleteFile)
}

/// Arguments of `code.createFile`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CreateFileArgs {
    /// Path relative to the workspace root; parent directories are created.
    pub path: String,
    /// The file's content.
    pub content: String,
}

/// `code.createFile`.
pub struct CreateFile;

impl Command<Services> for CreateFile {
    type Args = CreateFileArgs;
    type Output = super::Created;

    const SPEC: CommandSpec = CommandSpec::new(
        "code.createFile",
        "Code: Create File",
        "Code",
        "Create a new file with content, creating parent directories (seed 001's create_file). Fails with FILE_EXISTS if the path exists. A person may be asked first (shown the content).",
    )
    .touches(Touches::WRITE)
    .tool_name("create_file")
    .confirms()
    .examples(&[Example {
        description: "Create a file in a new directory",
        args: r#"{"path": "src/utils/date.ts", "content": "export const today = () => new Date();\n"}"#,
        expect: Some(r#"{"path": "src/utils/date.ts", "created": true}"#),
        ..Example::EMPTY
    }]);

    fn file_operation(&self, args: &CreateFileArgs) -> Option<ultra_core::FileOperation> {
        ultra_core::FileOperation::create(&args.path)
    }

    fn precheck(
        &self,
        services: &Services,
        source: &Source,
        a: &CreateFileArgs,
    ) -> Result<(), CommandError> {
        ultra_services::util::writable(services, source, &a.path)
    }

    fn preview(&self, _services: &Services, args: &CreateFileArgs) -> Option<String> {
        Some(super::head_of(&args.path, &args.content))
    }

    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        a: CreateFileArgs,
    ) -> Result<super::Created, CommandError> {
        super::CreateFile.run(
            cx,
            super::CreateFileArgs {
                path: a.path,
                content: a.content,
                overwrite: false,
                open: false,
                expected_hash: None,
            },
        )
    }
}

/// Arguments of `code.deleteFile`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DeleteFileArgs {
    /// Path relative to the workspace root.
    pub path: String,
}

/// `code.deleteFile`.
pub struct DeleteFile;

impl Command<Services> for DeleteFile {
    type Args = DeleteFileArgs;
    type Output = super::Deleted;

    const SPEC: CommandSpec = CommandSpec::new(
        "code.deleteFile",
        "Code: Delete File",
        "Code",
        "Delete a file (seed 001's delete_file). It cannot be undone. A person may be asked first (shown the content and the files that import it).",
    )
    .touches(Touches::WRITE)
    .tool_name("delete_file")
    .destructive()
    .confirms()
    .examples(&[Example {
        description: "Delete a file",
        args: r#"{"path": "old.txt"}"#,
        files: &[("old.txt", "stale\n")],
        expect: Some(r#"{"path": "old.txt", "deleted": true}"#),
        ..Example::EMPTY
    }]);

    fn file_operation(&self, args: &DeleteFileArgs) -> Option<ultra_core::FileOperation> {
        ultra_core::FileOperation::delete(&args.path)
    }

    fn precheck(
        &self,
        services: &Services,
        source: &Source,
        a: &DeleteFileArgs,
    ) -> Result<(), CommandError> {
        let ws = services.ws();
        let rel = ws.resolve_entry(&a.path, ultra_services::util::is_person(source))?;
        if !ws.root().exists(&rel) {
            return Err(ultra_workspace::WsError::NotFound(rel.to_string()).into());
        }
        Ok(())
    }

    fn preview(&self, services: &Services, args: &DeleteFileArgs) -> Option<String> {
        super::DeleteFile.preview(
            services,
            &super::DeleteFileArgs {
                path: args.path.clone(),
                confirm: None,
                force: false,
                expected_hash: None,
            },
        )
    }

    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        a: DeleteFileArgs,
    ) -> Result<super::Deleted, CommandError> {
        super::DeleteFile.run(
            cx,
            super::DeleteFileArgs {
                path: a.path,
                confirm: None,
                force: false,
                expected_hash: None,
            },
        )
    }
}
