//! `generators`: parameterized designs built with the `hdl` IR, each with a serde
//! parameter struct, validation and an independent Rust golden model, plus the registry
//! the `accelgen` CLI uses to list and elaborate them by name.

pub mod arith;
pub mod blocks;
pub mod board;
pub mod examples;
pub mod fgsimt;
pub mod fpu;
pub mod hwacha;
pub mod l2;
pub mod memory;
pub mod output;
pub mod overrides;
mod registry;
pub mod rocket;
pub mod schema;
pub mod vgiw;

pub use registry::{design, designs, elaborate, DesignInfo, ParamInfo};

use hdl::{HdlErrors, Module};
use schema::Param;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::rc::Rc;

/// A parameter value a design cannot be built with.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("parameter `{param}` {message}")]
pub struct ParamError {
    /// The parameter's dotted path (`depth`, `hwacha.lanes`).
    pub param: String,
    pub message: String,
}

impl ParamError {
    pub fn new(param: impl Into<String>, message: impl Into<String>) -> ParamError {
        ParamError {
            param: param.into(),
            message: message.into(),
        }
    }

    /// The error of a parameter of the nested table `table`.
    pub fn within(self, table: &str) -> ParamError {
        ParamError {
            param: format!("{table}.{}", self.param),
            ..self
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum GenError {
    #[error("unknown design `{name}` (available: {available})")]
    UnknownDesign { name: String, available: String },
    /// `param` is a dotted path; `table` names the nested table it would be in, if any.
    #[error(
        "design `{design}` has no parameter `{param}` (parameters{}: {known})",
        .table.as_ref().map(|t| format!(" of `{t}`")).unwrap_or_default()
    )]
    UnknownParameter {
        design: String,
        param: String,
        table: Option<String>,
        known: String,
    },
    #[error("design `{design}`: parameter `{param}` {message}")]
    InvalidParameter {
        design: String,
        param: String,
        message: String,
    },
    /// Validation should rule these out, so one reaching a user is a generator bug.
    #[error("design `{design}` failed to elaborate (a generator bug):\n{errors}")]
    Elaboration { design: String, errors: HdlErrors },
}

/// A design the registry can list and elaborate from TOML parameters.
pub trait Generator {
    /// All fields defaulted (`#[serde(default)]`); the registry rejects keys `params`
    /// does not describe before deserializing.
    type Params: Serialize + DeserializeOwned + Default;
    const NAME: &'static str;
    const DESCRIPTION: &'static str;

    /// Every field of `Params`, in declaration order, with the values it accepts.
    fn params() -> Vec<Param>;

    /// The rules `params` cannot express (across parameters); called after every value
    /// was checked against `params`.
    fn validate(params: &Self::Params) -> Result<(), ParamError>;

    /// Builds the top module; only called with validated parameters.
    fn build(params: &Self::Params) -> Result<Rc<Module>, HdlErrors>;
}

/// The README's Rust example, compiled and run as a doc test so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
