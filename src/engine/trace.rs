//! Tracing a game: the story of one game in plain text, or nothing at all.
//!
//! Owns the [`Tracer`] trait. The engine writes every trace line behind `if T::ON`, so with
//! [`NoTrace`] the formatting is compiled out of the hot loop and a traced game consumes the
//! same random numbers as an untraced one: `vpsim trace` shows exactly game I of `vpsim run`.

use std::fmt;

/// A sink for trace lines.
pub trait Tracer {
    /// Whether lines are wanted at all (a constant, so disabled tracing costs nothing).
    const ON: bool;
    /// Records one line.
    fn line(&mut self, args: fmt::Arguments<'_>);
}

/// No tracing.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoTrace;

impl Tracer for NoTrace {
    const ON: bool = false;
    #[inline(always)]
    fn line(&mut self, _: fmt::Arguments<'_>) {}
}

/// Collects trace lines as text.
#[derive(Debug, Default, Clone)]
pub struct TextTrace {
    /// The lines so far, each ending in a newline.
    pub text: String,
}

impl Tracer for TextTrace {
    const ON: bool = true;
    fn line(&mut self, args: fmt::Arguments<'_>) {
        use fmt::Write;
        let _ = self.text.write_fmt(args);
        self.text.push('\n');
    }
}
