//! The design registry: every design by name, with its parameters (for `accelgen list`),
//! and elaboration from a TOML table of parameter overrides.

use crate::examples::{banked_rf::BankedRf, queue::Queue, rocc_accumulator::RocketAccumulator};
use crate::hwacha::soc::RocketHwacha;
use crate::rocket::Rocket;
use crate::{GenError, Generator};
use hdl::Module;
use std::rc::Rc;

/// One parameter of a design.
#[derive(Clone, Debug)]
pub struct ParamInfo {
    pub name: &'static str,
    /// TOML type name: `integer`, `boolean`, ...
    pub ty: &'static str,
    pub default: toml::Value,
    pub doc: &'static str,
}

/// A design's parameters after defaults and overrides, and its top module.
pub struct Elaboration {
    /// Every parameter, in declaration order.
    pub params: toml::Table,
    pub top: Rc<Module>,
}

/// A design as the registry knows it.
pub struct DesignInfo {
    pub name: &'static str,
    pub description: &'static str,
    pub params: Vec<ParamInfo>,
    elaborate: fn(&toml::Table) -> Result<Elaboration, GenError>,
}

impl DesignInfo {
    fn of<G: Generator>() -> DesignInfo {
        let defaults = defaults::<G>();
        let params = G::PARAM_DOCS
            .iter()
            .map(|&(name, doc)| {
                let default = defaults
                    .get(name)
                    .unwrap_or_else(|| panic!("{}: documented parameter `{name}` missing", G::NAME))
                    .clone();
                ParamInfo {
                    name,
                    ty: default.type_str(),
                    default,
                    doc,
                }
            })
            .collect();
        DesignInfo {
            name: G::NAME,
            description: G::DESCRIPTION,
            params,
            elaborate: elaborate_as::<G>,
        }
    }

    /// Elaborates with `overrides` on top of the defaults; unknown, ill-typed or invalid
    /// parameters are errors naming the parameter.
    pub fn elaborate(&self, overrides: &toml::Table) -> Result<Elaboration, GenError> {
        (self.elaborate)(overrides)
    }
}

/// Every design, in the order `accelgen list` shows them.
pub fn designs() -> Vec<DesignInfo> {
    vec![
        DesignInfo::of::<BankedRf>(),
        DesignInfo::of::<Queue>(),
        DesignInfo::of::<Rocket>(),
        DesignInfo::of::<RocketAccumulator>(),
        DesignInfo::of::<RocketHwacha>(),
    ]
}

pub fn design(name: &str) -> Result<DesignInfo, GenError> {
    let all = designs();
    let available = all.iter().map(|d| d.name).collect::<Vec<_>>().join(", ");
    all.into_iter()
        .find(|d| d.name == name)
        .ok_or_else(|| GenError::UnknownDesign {
            name: name.to_string(),
            available,
        })
}

/// The top module of design `name` with parameters `overrides` on top of the defaults.
pub fn elaborate(name: &str, overrides: &toml::Table) -> Result<Rc<Module>, GenError> {
    Ok(design(name)?.elaborate(overrides)?.top)
}

fn defaults<G: Generator>() -> toml::Table {
    toml::Table::try_from(G::Params::default())
        .unwrap_or_else(|e| panic!("{}: default parameters are not a TOML table: {e}", G::NAME))
}

fn to_params<G: Generator>(table: toml::Table) -> Result<G::Params, toml::de::Error> {
    toml::Value::Table(table).try_into()
}

fn elaborate_as<G: Generator>(overrides: &toml::Table) -> Result<Elaboration, GenError> {
    let defaults = defaults::<G>();
    let invalid = |param: &str, message: String| GenError::InvalidParameter {
        design: G::NAME.to_string(),
        param: param.to_string(),
        message,
    };
    // Checked one at a time, so that each error names its parameter (serde's do not).
    for (key, value) in overrides {
        let Some(default) = defaults.get(key) else {
            return Err(GenError::UnknownParameter {
                design: G::NAME.to_string(),
                param: key.clone(),
                known: G::PARAM_DOCS
                    .iter()
                    .map(|(n, _)| *n)
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        };
        if default.type_str() != value.type_str() {
            return Err(invalid(
                key,
                format!(
                    "must be {} {}, got {} {} `{value}`",
                    article(default.type_str()),
                    default.type_str(),
                    article(value.type_str()),
                    value.type_str(),
                ),
            ));
        }
        let mut one = defaults.clone();
        one.insert(key.clone(), value.clone());
        if let Err(e) = to_params::<G>(one) {
            return Err(invalid(key, format!("cannot be {value}: {}", e.message())));
        }
    }
    let mut all = defaults;
    all.extend(overrides.iter().map(|(k, v)| (k.clone(), v.clone())));
    // Fields deserialize independently, and each was accepted on its own above.
    let params = to_params::<G>(all).expect("every parameter deserialized on its own");
    G::validate(&params).map_err(|e| invalid(e.param, e.message))?;
    let top = G::build(&params).map_err(|errors| GenError::Elaboration {
        design: G::NAME.to_string(),
        errors,
    })?;
    Ok(Elaboration {
        params: toml::Table::try_from(&params).expect("parameters serialize as they deserialize"),
        top,
    })
}

fn article(type_name: &str) -> &'static str {
    if type_name.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn documented_once<G: Generator>() {
        let mut documented: Vec<&str> = G::PARAM_DOCS.iter().map(|(n, _)| *n).collect();
        documented.sort_unstable();
        let fields = defaults::<G>();
        let mut fields: Vec<&str> = fields.keys().map(String::as_str).collect();
        fields.sort_unstable();
        assert_eq!(
            documented,
            fields,
            "{}: PARAM_DOCS vs. Params fields",
            G::NAME
        );
    }

    #[test]
    fn every_parameter_is_documented_once() {
        documented_once::<Queue>();
        documented_once::<BankedRf>();
        documented_once::<Rocket>();
        documented_once::<RocketAccumulator>();
        documented_once::<RocketHwacha>();
        assert_eq!(designs().len(), 5);
    }
}
