//! `generators`: parameterized designs built with the `hdl` IR, each with a serde
//! parameter struct, validation and an independent Rust golden model, plus the registry
//! the `accelgen` CLI uses to list and elaborate them by name.

pub mod examples;
pub mod hwacha;
pub mod output;
mod registry;
pub mod rocket;

pub use registry::{design, designs, elaborate, DesignInfo, ParamInfo};

use hdl::{HdlErrors, Module};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::rc::Rc;

/// A parameter value a design cannot be built with.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("parameter `{param}` {message}")]
pub struct ParamError {
    pub param: &'static str,
    pub message: String,
}

impl ParamError {
    pub fn new(param: &'static str, message: impl Into<String>) -> ParamError {
        ParamError {
            param,
            message: message.into(),
        }
    }

    /// `value` must lie in `lo..=hi`.
    pub fn check_range(param: &'static str, value: u32, lo: u32, hi: u32) -> Result<(), Self> {
        if (lo..=hi).contains(&value) {
            Ok(())
        } else {
            Err(ParamError::new(
                param,
                format!("must be in {lo}..={hi}, got {value}"),
            ))
        }
    }

    pub fn check_pow2(param: &'static str, value: u32) -> Result<(), Self> {
        if value.is_power_of_two() {
            Ok(())
        } else {
            Err(ParamError::new(
                param,
                format!("must be a power of two, got {value}"),
            ))
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum GenError {
    #[error("unknown design `{name}` (available: {available})")]
    UnknownDesign { name: String, available: String },
    #[error("design `{design}` has no parameter `{param}` (parameters: {known})")]
    UnknownParameter {
        design: String,
        param: String,
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
    /// All fields defaulted, unknown fields rejected (`#[serde(deny_unknown_fields, default)]`).
    type Params: Serialize + DeserializeOwned + Default;
    const NAME: &'static str;
    const DESCRIPTION: &'static str;
    /// `(parameter, meaning)` for every field of `Params`, in declaration order.
    const PARAM_DOCS: &'static [(&'static str, &'static str)];

    fn validate(params: &Self::Params) -> Result<(), ParamError>;

    /// Builds the top module; only called with validated parameters.
    fn build(params: &Self::Params) -> Result<Rc<Module>, HdlErrors>;
}

/// The README's Rust example, compiled and run as a doc test so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeDoctests;
