//! The tool's errors: a message for the user, with context added where they happen.

/// Errors of this tool: a message for the user.
pub(crate) type BenchResult<T> = Result<T, String>;

/// Converts any displayable error into the tool's error with context.
pub(crate) fn ctx<E: std::fmt::Display>(what: &str) -> impl FnOnce(E) -> String + '_ {
    move |e| format!("{what}: {e}")
}
